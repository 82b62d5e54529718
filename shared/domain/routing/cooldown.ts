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
  /** Opened by another process (taken from the store), not by this one's failures. */
  shared?: boolean;
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

  /**
   * The breakers other processes opened (read from the store: deployment → until). One opened there and later here
   * is skipped until the later time; one this process took from there and that is gone from there was closed by
   * another process's successful call, so it closes here too. Breakers this process opened itself stay as they are:
   * its own write may not have landed yet.
   */
  share(open: ReadonlyMap<string, number>): void {
    const now = this.now();
    for (const [id, until] of open) {
      const state = this.states.get(id);
      if (until > now && (state?.openUntil === undefined || state.openUntil < until)) this.states.set(id, { failedAt: [], openUntil: until, shared: true });
    }
    for (const [id, state] of this.states) {
      if (state.shared && !open.has(id)) this.states.delete(id);
    }
  }

  private open(state: BreakerState, now: number): BreakerChange {
    const until = now + this.policy.cooldownMs;
    Object.assign(state, { failedAt: [], openUntil: until, probing: false, shared: false });
    return { opened: true, until };
  }
}
