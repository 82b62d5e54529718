/**
 * The platform's own small HTML pages (the OAuth consent and its outcome): no script at all, one stylesheet
 * allowed by its hash, forms only to this origin (and where the form's answer redirects), never framed, never
 * cached. Every text is escaped: names come from tenants.
 */
import { createHash } from "node:crypto";
import { Reply } from "./reply.js";

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}h1{font-size:1.4rem}dt{font-weight:600}dd{margin:0 0 .5rem 0}button{font-size:1rem;padding:.5rem 1.2rem}";
const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export interface PageForm {
  /** Where it posts: a path of this origin. */
  action: string;
  fields: Record<string, string>;
  submit: string;
  /** Origins the form's answer may redirect to (CSP form-action applies to the redirect too). */
  redirectsTo?: string[];
}

export interface Page {
  status: number;
  title: string;
  paragraphs?: string[];
  /** A definition list: what the user is asked to agree to. */
  facts?: [string, string][];
  form?: PageForm;
  /** More response headers (Set-Cookie). */
  headers?: Record<string, string>;
}

/** The Content-Security-Policy of a page: nothing but its own stylesheet, forms to this origin and the named ones. */
export const pagePolicy = (redirectsTo: readonly string[] = []): string =>
  [`default-src 'none'`, `style-src ${STYLE_HASH}`, `form-action 'self'${redirectsTo.map((o) => ` ${o}`).join("")}`, `frame-ancestors 'none'`, `base-uri 'none'`].join("; ");

export function htmlPage(page: Page): Reply {
  const facts = page.facts?.length ? `<dl>${page.facts.map(([k, v]) => `<dt>${escape(k)}</dt><dd>${escape(v)}</dd>`).join("")}</dl>` : "";
  const form = page.form
    ? `<form method="post" action="${escape(page.form.action)}">${Object.entries(page.form.fields)
        .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
        .join("")}<button type="submit">${escape(page.form.submit)}</button></form>`
    : "";
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escape(page.title)}</title><style>${STYLE}</style></head><body><h1>${escape(page.title)}</h1>${(page.paragraphs ?? []).map((p) => `<p>${escape(p)}</p>`).join("")}${facts}${form}</body></html>`;
  return new Reply(page.status, body, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": pagePolicy(page.form?.redirectsTo),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    ...page.headers,
  });
}
