import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isClientSecret, signClientSession, verifyClientSession, type ClientSessionGrant } from "../../../../shared/domain/realtime/client-sessions.js";

const NOW = 1_800_000_000;
const current = randomBytes(32);
const previous = randomBytes(32);
const grant: ClientSessionGrant = { id: "a1b2c3d4e5f60718", organization: "org-1", workspace: "ws-1", principal: "user-1", principalType: "user", keyId: "key-1", model: "voxtral-mini-transcribe-realtime-2602", expiresAt: NOW + 60 };

describe("client secrets", () => {
  it("verify to the grant they were signed with, under the current or the previous secret", () => {
    expect(verifyClientSession([current], signClientSession(current, grant), NOW)).toStrictEqual({ ok: true, grant });
    expect(verifyClientSession([current, previous], signClientSession(previous, grant), NOW)).toStrictEqual({ ok: true, grant });
  });

  it("are refused once expired, or under a secret dropped by a rotation", () => {
    const token = signClientSession(current, grant);
    expect(verifyClientSession([current], token, NOW + 60)).toStrictEqual({ ok: false, reason: "expired" });
    expect(verifyClientSession([randomBytes(32)], token, NOW)).toStrictEqual({ ok: false, reason: "bad_signature" });
  });

  it("are refused when any byte of the payload or signature changes, or the shape is not theirs", () => {
    const token = signClientSession(current, grant);
    const [payload, signature] = token.slice(3).split(".") as [string, string];
    const otherModel = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), m: "another" })).toString("base64url");
    expect(verifyClientSession([current], `rt_${otherModel}.${signature}`, NOW).ok).toBe(false);
    // A character made different for sure: replacing the last with "A" left the signature as it was whenever it ended in
    // "A" (1 run in 16: that character carries four bits of the MAC and two of padding).
    const otherSignature = `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`;
    expect(verifyClientSession([current], `rt_${payload}.${otherSignature}`, NOW).ok).toBe(false);
    expect(verifyClientSession([current], `rt_${payload}.${signature}=`, NOW)).toStrictEqual({ ok: false, reason: "malformed" });
    expect(verifyClientSession([current], token.slice(3), NOW)).toStrictEqual({ ok: false, reason: "malformed" });
    expect(verifyClientSession([current], `${token}.x`, NOW)).toStrictEqual({ ok: false, reason: "malformed" });
  });

  it("are not download tokens: a signed file URL's token does not pass, though both use the same secret", async () => {
    const { signDownload } = await import("../../../../shared/domain/signed-urls.js");
    const download = signDownload(current, { workspace: "ws-1", fileId: "f", expiresAt: NOW + 60 });
    expect(verifyClientSession([current], `rt_${download}`, NOW).ok).toBe(false);
  });

  it("are told from API keys by their prefix", () => {
    expect(isClientSecret(signClientSession(current, grant))).toBe(true);
    expect(isClientSecret("pak_abcdefgh")).toBe(false);
  });
});
