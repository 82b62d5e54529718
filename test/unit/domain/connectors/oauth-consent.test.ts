/** The consent flow's pure rules (shared/domain/connectors/oauth-consent.ts). */
import { describe, expect, it } from "vitest";
import { browserCookieName, consentCookieName, nonceDigest, returnUrlAllowed } from "../../../../shared/domain/connectors/oauth-consent.js";

describe("returnUrlAllowed", () => {
  const list = ["https://app.example.com/done", "https://app.example.com/flows/"];

  it.each(["https://app.example.com/done", "https://app.example.com/flows/", "https://app.example.com/flows/42?step=2#top"])("allows %s", (url) => {
    expect(returnUrlAllowed(url, list)).toBe(true);
  });

  it.each([
    "https://app.example.com/done?x=1",
    "https://app.example.com/done/",
    "https://app.example.com/flows",
    "http://app.example.com/done",
    "https://app.example.com.evil.example/done",
    "https://app.example.com@evil.example/flows/",
    "https://user:pw@app.example.com/flows/1",
    "https://evil.example/https://app.example.com/done",
    "javascript:alert(1)",
    "not a url",
  ])("refuses %s", (url) => {
    expect(returnUrlAllowed(url, list)).toBe(false);
  });

  it("refuses everything when the deployment lists nothing", () => {
    expect(returnUrlAllowed("https://app.example.com/done", [])).toBe(false);
  });
});

describe("the flow's cookies", () => {
  it("are named per flow, so two flows in one browser keep their own", () => {
    expect(consentCookieName("a")).toMatch(/^oauth_consent_[A-Za-z0-9_-]{22}$/);
    expect(browserCookieName("a")).not.toBe(browserCookieName("b"));
    expect(browserCookieName("a").slice(-22)).toBe(consentCookieName("a").slice(-22));
  });

  it("keep only a digest of the nonce in the state", () => {
    expect(nonceDigest("n")).toBe(nonceDigest("n"));
    expect(nonceDigest("n")).not.toContain("n".repeat(2));
    expect(nonceDigest("n")).not.toBe(nonceDigest("m"));
  });
});
