import { createHash, randomBytes } from "node:crypto";
import type { Caller } from "./caller.js";

/**
 * An API key as stored: the caller it stands for, and never the key itself, only its SHA-256 (keys are
 * 256-bit random, so no slow hash is needed).
 */
export interface ApiKeyRecord extends Caller {
  hash: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  /** The first characters of the key, so people can tell their keys apart. */
  preview: string;
  /** From then on the key is refused, as a revoked one (ISO time). */
  expiresAt?: string;
}

/** Whether a key has expired at `now`. */
export const expired = (key: Pick<ApiKeyRecord, "expiresAt">, now = Date.now()): boolean => key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now;

const KEY_PREFIX = "pak_";

/** A new secret: shown once to whoever creates it. */
export const newApiKey = (): string => `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;

export const newKeyId = (): string => randomBytes(8).toString("hex");

export const hashApiKey = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex");

export const previewOf = (key: string): string => `${key.slice(0, 8)}…`;

/** The key from an `Authorization: Bearer <key>` header, or undefined when the header is missing or malformed. */
/** A key sent bare (the `x-api-key` header), with the same shape rules as a bearer key. */
export function plainKey(header: string | undefined): string | undefined {
  return /^[\x21-\x7e]{8,512}$/.exec(header?.trim() ?? "")?.[0];
}

export function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer[ ]+([\x21-\x7e]{8,512})$/i.exec(header?.trim() ?? "");
  return match?.[1];
}
