/** The platform's own HTML pages (shared/http/page.ts): no script, escaped text, never framed or cached. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { htmlPage } from "../../../shared/http/page.js";

describe("htmlPage", () => {
  const page = htmlPage({
    status: 200,
    title: "T <b>",
    paragraphs: [`"quoted" & <script>alert(1)</script>`],
    facts: [["Workspace", "<img src=x>"]],
    form: { action: "/v1/x", fields: { state: 'a"b' }, submit: "Go", redirectsTo: ["https://auth.example.com"] },
  });
  const body = String(page.body);

  it("escapes every text and attribute", () => {
    expect(body).not.toMatch(/<script|<img|<b>/);
    expect(body).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(body).toContain('value="a&quot;b"');
  });

  it("sends a policy that allows its own stylesheet by hash, no script, forms only here and to the named origins", () => {
    const policy = page.headers["content-security-policy"]!;
    const style = /<style>(.*?)<\/style>/.exec(body)![1]!;
    expect(policy).toContain(`style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'`);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("form-action 'self' https://auth.example.com");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/script-src|unsafe-inline/);
    expect(page.headers).toMatchObject({ "x-frame-options": "DENY", "cache-control": "no-store", "referrer-policy": "no-referrer", "content-type": "text/html; charset=utf-8" });
  });
});
