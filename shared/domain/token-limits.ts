/**
 * Per-key token limits (docs/routing.md, "Per-key limits"): the windows a call's tokens count in. A key may have a
 * tokens-per-minute and a tokens-per-day limit; each is a counter per window, reserved before the call and settled
 * after it.
 */

export interface TokenLimits {
  /** Tokens (prompt and completion) per UTC minute. */
  tokensPerMinute?: number;
  /** Tokens per UTC day. */
  tokensPerDay?: number;
}

export interface TokenWindow {
  kind: "minute" | "day";
  /** The counter's id within the key's partition. */
  id: string;
  limit: number;
  /** When DynamoDB's TTL may drop the counter (epoch seconds): after its window is over. */
  expiresAt: number;
  /** Seconds until the window ends: the Retry-After of a refusal. */
  endsInSeconds: number;
}

const MINUTE_TTL_SECONDS = 120;
const DAY_TTL_SECONDS = 2 * 86_400;

export const hasTokenLimits = (limits: TokenLimits): boolean => Boolean(limits.tokensPerMinute || limits.tokensPerDay);

/** The windows `now` falls in, for the limits the key has. */
export function tokenWindows(limits: TokenLimits, now: Date): TokenWindow[] {
  const seconds = Math.floor(now.getTime() / 1000);
  const iso = now.toISOString();
  const windows: TokenWindow[] = [];
  if (limits.tokensPerMinute) {
    windows.push({ kind: "minute", id: `tpm#${iso.slice(0, 16)}`, limit: limits.tokensPerMinute, expiresAt: seconds + MINUTE_TTL_SECONDS, endsInSeconds: 60 - now.getUTCSeconds() });
  }
  if (limits.tokensPerDay) {
    const endOfDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000;
    windows.push({ kind: "day", id: `tpd#${iso.slice(0, 10)}`, limit: limits.tokensPerDay, expiresAt: seconds + DAY_TTL_SECONDS, endsInSeconds: Math.ceil(endOfDay - now.getTime() / 1000) });
  }
  return windows;
}

/**
 * The most a window may hold already for a call of `tokens` to be let in: the call must fit, and a window that is
 * full refuses even a call that counts no tokens.
 */
export const roomFor = (limit: number, tokens: number): number => Math.min(limit - tokens, limit - 1);
