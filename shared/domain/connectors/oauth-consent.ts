/**
 * The rules that bind an OAuth consent to the browser that gave it (decision 0043): the return URLs a
 * deployment allows, and the names and digests of the per-flow cookies.
 */
import { createHash } from "node:crypto";

/**
 * Whether `candidate` is on the deployment's list: equal to an entry, or under an entry that ends with `/`
 * (same origin, path below it). Userinfo is never allowed (`https://app.example@evil.example/` is evil.example).
 */
export function returnUrlAllowed(candidate: string, allowList: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) return false;
  return allowList.some((entry) => {
    const allowed = new URL(entry);
    if (allowed.origin !== url.origin) return false;
    return entry.endsWith("/") ? url.href.startsWith(entry) : url.href === entry;
  });
}

/** A short, stable tag of a flow's state: names its cookies, so flows in one browser do not overwrite each other's. */
export const flowTag = (state: string): string => createHash("sha256").update(state).digest("base64url").slice(0, 22);

/** The cookie that proves the consent page was read in this browser (double submit: it must match the form's token). */
export const consentCookieName = (state: string): string => `oauth_consent_${flowTag(state)}`;

/** The cookie that binds the flow to the browser that confirmed the consent; the callback needs it. */
export const browserCookieName = (state: string): string => `oauth_browser_${flowTag(state)}`;

/** What the state record keeps of a browser nonce: its digest, so a read of the table cannot complete a flow. */
export const nonceDigest = (nonce: string): string => createHash("sha256").update(nonce).digest("base64url");
