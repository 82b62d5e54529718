import { seal, unseal } from "./sealed-tokens.js";

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

const DOMAIN = "file-download.v1";

export function signDownload(secret: Buffer, grant: DownloadGrant): string {
  return seal(secret, DOMAIN, { w: grant.workspace, f: grant.fileId, e: grant.expiresAt });
}

export type DownloadCheck = { ok: true; grant: DownloadGrant } | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

/**
 * Checks a token against the current secret and, during a rotation's overlap, the previous one (docs/operations.md
 * "Rotations"): URLs issued before the rotation keep working until their own expiry.
 */
export function verifyDownload(secrets: Buffer | readonly Buffer[], token: string, now: number): DownloadCheck {
  const opened = unseal(Buffer.isBuffer(secrets) ? [secrets] : secrets, DOMAIN, token);
  if (!opened.ok) return opened;
  const { w, f, e } = opened.fields;
  if (typeof w !== "string" || typeof f !== "string" || typeof e !== "number") return { ok: false, reason: "malformed" };
  if (e <= now) return { ok: false, reason: "expired" };
  return { ok: true, grant: { workspace: w, fileId: f, expiresAt: e } };
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
