/**
 * Deployments cooling down (docs/routing.md, "Cooldowns"): a circuit breaker per deployment. `failures` upstream
 * failures within `windowMs` open it: the deployment is skipped for `cooldownMs`. After that one call is let through
 * (half open): its success closes the breaker, its failure opens it again at once. Only opening and closing are
 * changes worth sharing with other processes; the calls between them touch this process's memory alone.
 */
export interface CooldownPolicy {
  failures: number;
  windowMs: number;
  cooldownMs: number;
}

export const DEFAULT_COOLDOWN: CooldownPolicy = { failures: 3, windowMs: 30_000, cooldownMs: 30_000 };

interface BreakerState {
  /** When the recent failures happened (ms), oldest first; at most `failures` kept. */
  failedAt: number[];
  /** Skipped until then (ms since the epoch), when open. */
  openUntil?: number;
  /** The one call let through after a cooldown is in flight. */
  probing?: boolean;
}

/** What a recorded outcome changed, for the caller to share (the store) when it is a change. */
export type BreakerChange = { opened: true; until: number } | { closed: true } | undefined;

export class Cooldowns {
  private readonly states = new Map<string, BreakerState>();

  constructor(
    private readonly policy: CooldownPolicy = DEFAULT_COOLDOWN,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a call may go to `id` now: closed, or past its cooldown with no call let through yet. */
  available(id: string): boolean {
    const state = this.states.get(id);
    return state?.openUntil === undefined || (this.now() >= state.openUntil && !state.probing);
  }

  /** A call goes to `id`: past its cooldown, it is the one let through, and the next wait for its answer. */
  begin(id: string): void {
    const state = this.states.get(id);
    if (state?.openUntil !== undefined && this.now() >= state.openUntil) state.probing = true;
  }

  /** Until when `id` is skipped, if it is. */
  openUntil(id: string): number | undefined {
    const until = this.states.get(id)?.openUntil;
    return until !== undefined && this.now() < until ? until : undefined;
  }

  succeeded(id: string): BreakerChange {
    const state = this.states.get(id);
    if (!state) return undefined;
    this.states.delete(id);
    return state.openUntil !== undefined ? { closed: true } : undefined;
  }

  failed(id: string): BreakerChange {
    const now = this.now();
    const state = this.states.get(id) ?? { failedAt: [] };
    this.states.set(id, state);
    if (state.openUntil !== undefined && (state.probing || now < state.openUntil)) return this.open(state, now);
    state.failedAt = [...state.failedAt.filter((at) => now - at < this.policy.windowMs), now].slice(-this.policy.failures);
    return state.failedAt.length >= this.policy.failures ? this.open(state, now) : undefined;
  }

  /** Another process's news (read from the store): `id` is open until `until`, or closed (undefined). */
  adopt(id: string, until: number | undefined): void {
    if (until === undefined) this.states.delete(id);
    else this.states.set(id, { failedAt: [], openUntil: until });
  }

  private open(state: BreakerState, now: number): BreakerChange {
    const until = now + this.policy.cooldownMs;
    Object.assign(state, { failedAt: [], openUntil: until, probing: false });
    return { opened: true, until };
  }
}
