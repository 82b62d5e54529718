import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MAX_SIGNED_URL_HOURS, overlapEndsAt, signDownload, SIGNING_SECRET_CACHE_SECONDS, verifyDownload, type DownloadGrant } from "../../../shared/domain/signed-urls.js";

const secret = randomBytes(32);
const aGrant = (overrides: Partial<DownloadGrant> = {}): DownloadGrant => ({ workspace: randomUUID(), fileId: randomUUID(), expiresAt: 1_800_000_000, ...overrides });
const b64 = (text: string) => Buffer.from(text).toString("base64url");

/** A token in the v1 format signed with `secret`, for payloads signDownload would never produce. */
const signedPayload = (payload: string) =>
  `${payload}.${createHmac("sha256", secret).update(`file-download.v1.${payload}`).digest("base64url")}`;

describe("download tokens", () => {
  it("verifies a token it signed and returns its grant", () => {
    const grant = aGrant();

    expect(verifyDownload(secret, signDownload(secret, grant), grant.expiresAt - 1)).toStrictEqual({ ok: true, grant });
  });

  it("is URL-safe", () => {
    expect(signDownload(secret, aGrant())).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it("refuses a token whose payload was changed", () => {
    const [, signature] = signDownload(secret, aGrant({ fileId: "mine" })).split(".");
    const forged = `${b64(JSON.stringify({ w: "theirs", f: "theirs", e: 1_800_000_000 }))}.${signature}`;

    expect(verifyDownload(secret, forged, 0)).toStrictEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuses a token whose signature was changed", () => {
    const [payload, signature] = signDownload(secret, aGrant()).split(".");
    const flipped = Buffer.from(signature!, "base64url");
    flipped[0] = flipped[0]! ^ 1;

    expect(verifyDownload(secret, `${payload}.${flipped.toString("base64url")}`, 0)).toStrictEqual({ ok: false, reason: "bad_signature" });
  });

  it.each([
    ["a character outside base64url inserted", (sig: string) => `${sig.slice(0, 10)}!${sig.slice(10)}`],
    ["padding added", (sig: string) => `${sig}=`],
    ["standard base64's alphabet", (sig: string) => sig.replace(/-/g, "+").replace(/_/g, "/") + (/[-_]/.test(sig) ? "" : "+")],
    ["a whitespace inside", (sig: string) => `${sig.slice(0, 5)} ${sig.slice(5)}`],
    ["the last character's spare bits set", (sig: string) => {
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      return sig.slice(0, -1) + alphabet[alphabet.indexOf(sig.at(-1)!) ^ 1];
    }],
  ])("refuses a signature that decodes to the right bytes but is not spelled canonically (%s)", (_, respell) => {
    const grant = aGrant();
    const [payload, signature] = signDownload(secret, grant).split(".");

    expect(verifyDownload(secret, `${payload}.${respell(signature!)}`, 0)).toStrictEqual({ ok: false, reason: "malformed" });
  });

  it("refuses a payload that is not spelled canonically", () => {
    const [payload, signature] = signDownload(secret, aGrant()).split(".");

    expect(verifyDownload(secret, `${payload}!.${signature}`, 0)).toStrictEqual({ ok: false, reason: "malformed" });
  });

  it("refuses a truncated signature", () => {
    const [payload, signature] = signDownload(secret, aGrant()).split(".");
    // Three bytes fewer, spelled canonically (cutting characters would leave spare bits: a malformed token).
    const truncated = Buffer.from(signature!, "base64url").subarray(0, -3).toString("base64url");

    expect(verifyDownload(secret, `${payload}.${truncated}`, 0)).toStrictEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuses a token signed with another secret", () => {
    expect(verifyDownload(secret, signDownload(randomBytes(32), aGrant()), 0)).toStrictEqual({ ok: false, reason: "bad_signature" });
  });

  it("honours a token until the second before its expiry", () => {
    const grant = aGrant({ expiresAt: 1_800_000_000 });

    expect(verifyDownload(secret, signDownload(secret, grant), 1_799_999_999).ok).toBe(true);
  });

  it("refuses a token at exactly its expiry second", () => {
    const grant = aGrant({ expiresAt: 1_800_000_000 });

    expect(verifyDownload(secret, signDownload(secret, grant), 1_800_000_000)).toStrictEqual({ ok: false, reason: "expired" });
  });

  it("refuses a token after its expiry", () => {
    const grant = aGrant({ expiresAt: 1_800_000_000 });

    expect(verifyDownload(secret, signDownload(secret, grant), 1_900_000_000)).toStrictEqual({ ok: false, reason: "expired" });
  });

  it.each(["", "abc", "a.", ".b", "a.b.c"])("refuses the malformed token %j", (token) => {
    expect(verifyDownload(secret, token, 0)).toStrictEqual({ ok: false, reason: "malformed" });
  });

  it("refuses a signed payload that is not JSON", () => {
    expect(verifyDownload(secret, signedPayload(b64("not json")), 0)).toStrictEqual({ ok: false, reason: "malformed" });
  });

  it("refuses a signed payload without a numeric expiry", () => {
    expect(verifyDownload(secret, signedPayload(b64(JSON.stringify({ w: "w", f: "f", e: "1800000000" }))), 0)).toStrictEqual({ ok: false, reason: "malformed" });
  });
});

describe("download tokens across a rotation of the secret", () => {
  const previous = randomBytes(32);
  const current = randomBytes(32);

  it("verifies a token of the current or the previous secret, and no other", () => {
    const grant = aGrant();

    expect(verifyDownload([current, previous], signDownload(previous, grant), 0)).toStrictEqual({ ok: true, grant });
    expect(verifyDownload([current, previous], signDownload(current, grant), 0)).toStrictEqual({ ok: true, grant });
    expect(verifyDownload([current, previous], signDownload(randomBytes(32), grant), 0)).toStrictEqual({ ok: false, reason: "bad_signature" });
    expect(verifyDownload([current], signDownload(previous, grant), 0)).toStrictEqual({ ok: false, reason: "bad_signature" });
  });

  it("keeps the previous secret until every URL it signed has expired: 168 h plus the functions' cache", () => {
    expect(overlapEndsAt(1_000)).toBe(1_000 + MAX_SIGNED_URL_HOURS * 3600 + SIGNING_SECRET_CACHE_SECONDS);
  });
});
