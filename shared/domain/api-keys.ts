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

/**
 * A key's limits (docs/routing.md, "Per-key limits"): each field of the record and its name in the API and the audit
 * log. The one list the key routes, the keys CLI, the authorizer's caller and its context are derived from.
 */
export const KEY_LIMIT_NAMES = {
  rateLimitPerMinute: "rate_limit_per_minute",
  tokensPerMinute: "tokens_per_minute",
  tokensPerDay: "tokens_per_day",
  monthlyBudget: "monthly_budget",
  models: "models",
  expiresAt: "expires_at",
} as const;
export type KeyLimitField = keyof typeof KEY_LIMIT_NAMES;
export const KEY_LIMITS = Object.keys(KEY_LIMIT_NAMES) as KeyLimitField[];

/** The limits a call is held to, which travel with the caller (expiry is the authorizer's own check). */
export type CallLimitField = Exclude<KeyLimitField, "expiresAt">;
export const CALL_LIMITS = KEY_LIMITS.filter((field): field is CallLimitField => field !== "expiresAt");

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
