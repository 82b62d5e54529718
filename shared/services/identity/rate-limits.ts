import type { Caller } from "../../domain/caller.js";
import { RateLimited } from "../../domain/errors.js";
import { rateStore } from "../../store/rates.js";

/**
 * A key with a per-minute limit takes one request from its current minute's allowance; past it, 429 with
 * Retry-After until the next minute. Keys without a limit cost nothing here.
 */
export async function enforceRateLimit(caller: Pick<Caller, "keyId" | "rateLimitPerMinute">, now = new Date()): Promise<void> {
  const limit = caller.rateLimitPerMinute;
  if (!limit) return;
  const window = now.toISOString().slice(0, 16);
  if (await rateStore.take(caller.keyId, window, limit, Math.floor(now.getTime() / 1000))) return;
  throw new RateLimited(limit, 60 - now.getUTCSeconds());
}
