import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Tokens that carry their own fields, sealed with an HMAC-SHA256 under one of the deployment's signing secrets:
 * `<base64url JSON>.<base64url MAC>`. Each kind names its own domain (`file-download.v1`, `client-session.v1`), which
 * the MAC covers, so a token of one kind never opens as another though the secret is the same.
 */
const b64url = (data: Buffer | string): string => Buffer.from(data).toString("base64url");
const mac = (secret: Buffer, domain: string, payload: string): Buffer => createHmac("sha256", secret).update(`${domain}.${payload}`).digest();

/**
 * Base64url exactly as `seal` writes it, or undefined: Node's decoder skips characters outside the alphabet and
 * ignores padding and a last character's spare bits, so many spellings would decode to one signature; only the one
 * spelling is taken.
 */
function canonicalBase64url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : undefined;
}

export function seal(secret: Buffer, domain: string, fields: Record<string, unknown>): string {
  const payload = b64url(JSON.stringify(fields));
  return `${payload}.${b64url(mac(secret, domain, payload))}`;
}

export type Unsealed = { ok: true; fields: Record<string, unknown> } | { ok: false; reason: "malformed" | "bad_signature" };

/** The fields of a token sealed under any of `secrets` (the current one and, during a rotation's overlap, the previous). */
export function unseal(secrets: readonly Buffer[], domain: string, token: string): Unsealed {
  const [payload, signature, ...rest] = token.split(".");
  if (!payload || !signature || rest.length) return { ok: false, reason: "malformed" };
  const given = canonicalBase64url(signature);
  if (!given || !canonicalBase64url(payload)) return { ok: false, reason: "malformed" };
  const matches = (secret: Buffer) => {
    const expected = mac(secret, domain, payload);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  if (!secrets.some(matches)) return { ok: false, reason: "bad_signature" };
  try {
    const fields: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return fields !== null && typeof fields === "object" && !Array.isArray(fields) ? { ok: true, fields: fields as Record<string, unknown> } : { ok: false, reason: "malformed" };
  } catch {
    return { ok: false, reason: "malformed" };
  }
}
