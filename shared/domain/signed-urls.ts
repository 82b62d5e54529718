import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Download tokens for signed file URLs. S3 presigned URLs die with the Lambda credentials that signed
 * them (hours), but a signed URL may live 168 h, so the URL carries our own HMAC token instead and the
 * download route trades it for a short-lived S3 URL.
 */
export interface DownloadGrant {
  workspace: string;
  fileId: string;
  /** Unix seconds after which the token is refused. */
  expiresAt: number;
}

const b64url = (data: Buffer | string): string => Buffer.from(data).toString("base64url");

/**
 * Base64url exactly as the signers here write it, or undefined: Node's decoder skips characters outside the
 * alphabet and ignores padding and a last character's spare bits, so many spellings would decode to one
 * signature; only the one spelling is taken.
 */
export function canonicalBase64url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : undefined;
}

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac("sha256", secret).update(`file-download.v1.${payload}`).digest();
}

export function signDownload(secret: Buffer, grant: DownloadGrant): string {
  const payload = b64url(JSON.stringify({ w: grant.workspace, f: grant.fileId, e: grant.expiresAt }));
  return `${payload}.${b64url(mac(secret, payload))}`;
}

export type DownloadCheck = { ok: true; grant: DownloadGrant } | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

/**
 * Checks a token against the current secret and, during a rotation's overlap, the previous one (docs/operations.md
 * "Rotations"): URLs issued before the rotation keep working until their own expiry.
 */
export function verifyDownload(secrets: Buffer | readonly Buffer[], token: string, now: number): DownloadCheck {
  const [payload, signature, ...rest] = token.split(".");
  if (!payload || !signature || rest.length) return { ok: false, reason: "malformed" };
  const given = canonicalBase64url(signature);
  if (!given || !canonicalBase64url(payload)) return { ok: false, reason: "malformed" };
  const matches = (secret: Buffer) => {
    const expected = mac(secret, payload);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  if (!(Buffer.isBuffer(secrets) ? [secrets] : secrets).some(matches)) return { ok: false, reason: "bad_signature" };
  let fields: { w?: unknown; f?: unknown; e?: unknown };
  try {
    fields = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (typeof fields.w !== "string" || typeof fields.f !== "string" || typeof fields.e !== "number") {
    return { ok: false, reason: "malformed" };
  }
  if (fields.e <= now) return { ok: false, reason: "expired" };
  return { ok: true, grant: { workspace: fields.w, fileId: fields.f, expiresAt: fields.e } };
}

/** The longest a signed URL lives (`expiry` of GET /v1/files/{file_id}/url, hours). */
export const MAX_SIGNED_URL_HOURS = 168;
/** How long a function reuses the secrets it read (a rotation reaches every container within it). */
export const SIGNING_SECRET_CACHE_SECONDS = 300;

/**
 * When the previous secret may be dropped: every URL it signed has expired (issued at most `cache` after the
 * rotation, by a container that had not re-read the secrets yet, and living at most 168 h).
 */
export function overlapEndsAt(rotatedAt: number): number {
  return rotatedAt + MAX_SIGNED_URL_HOURS * 3600 + SIGNING_SECRET_CACHE_SECONDS;
}
