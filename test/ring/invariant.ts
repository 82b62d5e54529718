import type { EmbeddedApi } from "../support/api.js";

/**
 * The concurrency ring: one entry per versioned or counted thing. Each entry makes something (setup),
 * lets N writers at it at once, then checks what must hold however they interleaved: no lost update,
 * no duplicate, no gap. A new versioned or counted resource adds one entry (test/ring/invariants/).
 */
export interface Invariant<State = any, Result = any> {
  /** What holds, as a sentence: the test's title. */
  name: string;
  /** How many writers run at once. */
  writers: number;
  setup(ring: EmbeddedApi): Promise<State>;
  /** Writer `index` (0 … writers-1); what it returns or throws reaches `check`. */
  write(state: State, index: number, ring: EmbeddedApi): Promise<Result>;
  check(state: State, outcomes: PromiseSettledResult<Result>[], ring: EmbeddedApi): Promise<void>;
}

const registered: Invariant[] = [];

/** Adds an entry to the ring (called at import by the modules of test/ring/invariants/). */
export function invariant<State, Result>(entry: Invariant<State, Result>): Invariant<State, Result> {
  if (registered.some((r) => r.name === entry.name)) throw new Error(`Two invariants named '${entry.name}'`);
  registered.push(entry as Invariant);
  return entry;
}

export const invariants = (): readonly Invariant[] => registered;

/**
 * Runs one entry: setup, every writer at once, then the check. `write` replaces the entry's writer, so
 * a test can prove the check catches a writer that breaks the rule.
 */
export async function runInvariant<State, Result>(
  entry: Invariant<State, Result>,
  ring: EmbeddedApi,
  options: { write?: Invariant<State, Result>["write"] } = {},
): Promise<void> {
  const state = await entry.setup(ring);
  const write = options.write ?? entry.write;
  const outcomes = await Promise.allSettled(Array.from({ length: entry.writers }, (_, i) => write(state, i, ring)));
  await entry.check(state, outcomes, ring);
}

/** The values of the writers that succeeded; fails naming the first writer that threw. */
export function fulfilled<Result>(outcomes: PromiseSettledResult<Result>[]): Result[] {
  return outcomes.map((outcome, i) => {
    if (outcome.status === "rejected") throw new Error(`writer ${i} failed: ${String(outcome.reason)}`, { cause: outcome.reason });
    return outcome.value;
  });
}

export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
