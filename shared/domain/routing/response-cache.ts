import { createHash } from "node:crypto";
import { MAX_CACHE_TTL_SECONDS } from "../../schemas/workspace.js";
import { Unprocessable } from "../errors.js";
import { canonicalJson } from "../workflows/program/hash.js";

/**
 * The response cache's rules (docs/routing.md, "Response cache"): whether a call uses it, for how long, and the key
 * an answer is kept under. Opt-in: the workspace's `response_cache_ttl_seconds`, or the caller's
 * `x-response-cache: on` (with `x-response-cache-ttl`); `x-response-cache: off` skips it for one call.
 */

export const RESPONSE_CACHE_HEADER = "x-response-cache";
export const RESPONSE_CACHE_TTL_HEADER = "x-response-cache-ttl";
/** The backend a cached answer came from, as its header, usage record and span name it. */
export const RESPONSE_CACHE_BACKEND = "response-cache";

/** An hour when neither the call nor the workspace says. */
export const DEFAULT_CACHE_TTL_SECONDS = 3_600;

export interface ResponseCaching {
  ttlSeconds: number;
}

/** What the caller asked for in its headers: on (with a TTL or not), off, or nothing (the workspace decides). */
export interface CacheRequest {
  mode?: "on" | "off";
  ttlSeconds?: number;
}

export function cacheRequestOf(mode: string | undefined, ttl: string | undefined): CacheRequest {
  const issues: { loc: string[]; msg: string; type: string }[] = [];
  const normalized = mode?.trim().toLowerCase();
  if (normalized !== undefined && normalized !== "on" && normalized !== "off") {
    issues.push({ loc: ["header", RESPONSE_CACHE_HEADER], msg: "Must be 'on' or 'off'", type: "value_error" });
  }
  let ttlSeconds: number | undefined;
  if (ttl !== undefined) {
    ttlSeconds = /^\d{1,7}$/.test(ttl.trim()) ? Number(ttl.trim()) : Number.NaN;
    if (!(ttlSeconds >= 1 && ttlSeconds <= MAX_CACHE_TTL_SECONDS)) {
      issues.push({ loc: ["header", RESPONSE_CACHE_TTL_HEADER], msg: `Must be a whole number of seconds from 1 to ${MAX_CACHE_TTL_SECONDS}`, type: "value_error" });
    }
  }
  if (issues.length) throw new Unprocessable(issues);
  return { ...(normalized ? { mode: normalized as "on" | "off" } : {}), ...(ttlSeconds !== undefined ? { ttlSeconds } : {}) };
}

/** Whether this call uses the cache, and for how long it keeps what it stores: the call's word first, then the workspace's. */
export function cachingOf(request: CacheRequest | undefined, workspaceTtlSeconds: number | null | undefined): ResponseCaching | undefined {
  if (request?.mode === "off") return undefined;
  if (request?.mode === "on" || request?.ttlSeconds !== undefined) return { ttlSeconds: request.ttlSeconds ?? workspaceTtlSeconds ?? DEFAULT_CACHE_TTL_SECONDS };
  return workspaceTtlSeconds ? { ttlSeconds: workspaceTtlSeconds } : undefined;
}

/** Fields that change how an answer is delivered or recorded, not what it says. */
const DELIVERY_FIELDS = new Set(["stream", "stream_options", "metadata"]);

/**
 * The key of a call's answer: a hash of what decides the answer (the endpoint, the model as resolved, and every
 * request field but the delivery ones), with object keys sorted so that field order does not matter. Kept under the
 * workspace, so one workspace's key never reaches another's answers.
 */
export function responseKeyOf(endpoint: string, model: string, request: Record<string, unknown>): string {
  const decisive = Object.fromEntries(Object.entries(request).filter(([field, value]) => !DELIVERY_FIELDS.has(field) && field !== "model" && value !== undefined && value !== null));
  return createHash("sha256").update(`${endpoint}\n${model}\n${canonicalJson(decisive)}`).digest("base64url");
}
