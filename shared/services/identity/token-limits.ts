import type { Caller } from "../../domain/caller.js";
import { TokenLimitReached } from "../../domain/errors.js";
import { hasTokenLimits, roomFor, tokenWindows, type TokenWindow } from "../../domain/token-limits.js";
import { logger } from "../../observability/logger.js";
import { rateStore } from "../../store/rates.js";

export { hasTokenLimits } from "../../domain/token-limits.js";

/** The tokens a call reserved before its upstream, in the windows it counts in: settled once it ends. */
export interface TokenReservation {
  keyId: string;
  windows: TokenWindow[];
  tokens: number;
}

/**
 * Reserves the prompt's tokens in each of the key's token windows (one conditional ADD per limit the key has); a
 * window without room refuses the call with 429 and gives back what the others took. Callers check
 * `hasTokenLimits` first: a key without token limits costs nothing here.
 */
export async function reserveTokens(caller: Pick<Caller, "keyId" | "tokensPerMinute" | "tokensPerDay">, tokens: number, now = new Date()): Promise<TokenReservation> {
  const windows = tokenWindows(caller, now);
  const never = windows.find((w) => tokens > w.limit);
  if (never) throw new TokenLimitReached(never.limit, never.kind, undefined, tokens);
  const taken = await Promise.all(windows.map((w) => rateStore.reserveTokens(caller.keyId, w.id, tokens, roomFor(w.limit, tokens), w.expiresAt)));
  const full = windows.find((_, i) => !taken[i]);
  if (!full) return { keyId: caller.keyId, windows, tokens };
  await giveBack(caller.keyId, windows.filter((_, i) => taken[i]), tokens);
  throw new TokenLimitReached(full.limit, full.kind, full.endsInSeconds);
}

/**
 * Settles a reservation with the tokens the call used (prompt and completion; none for a call that failed): the
 * difference goes to the windows it was reserved in, so a call that ends in the next minute still counts in its own.
 */
export async function settleTokens(reservation: TokenReservation, used: number): Promise<void> {
  const difference = used - reservation.tokens;
  if (difference === 0) return;
  await Promise.all(reservation.windows.map((w) => rateStore.addTokens(reservation.keyId, w.id, difference, w.expiresAt)));
}

async function giveBack(keyId: string, windows: TokenWindow[], tokens: number): Promise<void> {
  await Promise.all(
    windows.map((w) =>
      // A lost give-back leaves the window fuller than it is until it ends: logged, never the caller's error.
      rateStore.addTokens(keyId, w.id, -tokens, w.expiresAt).catch((error: unknown) => logger.warn("token reservation not given back", { error: error as Error, window: w.kind })),
    ),
  );
}
