import { AsyncLocalStorage } from "node:async_hooks";
import { logger } from "./logger.js";

/**
 * Answer first, bookkeeping after (decision 0045). A model call's writes that the caller does not wait for
 * (its usage record, the month's and the day's totals, its span) are handed here with `afterAnswer`; the
 * handler chain runs them once the caller's response is complete (the response stream ended, or a plain
 * answer returned), still inside the same invocation. Outside an invocation (a batch line, a workflow step)
 * there is no answer to wait for: the write runs at once and the caller awaits it, as before.
 *
 * Nothing acknowledged is lost silently: a write that fails is retried, and if it still fails it is logged
 * with what it was for (never its content).
 */

type Write = () => Promise<void>;

interface Invocation {
  readonly startedAt: number;
  readonly requestId: string;
  readonly writes: { what: string; write: Write }[];
  /** The caller has its whole answer; only bookkeeping remains. */
  answered: boolean;
}

const storage = new AsyncLocalStorage<Invocation>();
/**
 * Invocations in flight in this process, from their start to the end of their bookkeeping (the flush hook waits on
 * them). One registry per process, not per module copy: `npm start --bundled` loads every function's bundle (each
 * with its own copy of this module) into one process, and the local server's wait must see them all. A Lambda
 * process holds one bundle, so there it is the same map either way.
 */
const inFlight: Map<Promise<unknown>, Invocation> = ((globalThis as Record<symbol, unknown>)[Symbol.for("platform.bookkeeping.inFlight")] ??= new Map()) as Map<Promise<unknown>, Invocation>;

/** Attempts per write: the AWS SDK retries each command itself; this covers a failure that outlived those. */
const ATTEMPTS = 3;
const BACKOFF_MS = [50, 250];

/**
 * Runs `answer` as one invocation whose deferred writes run after it resolves (for a streaming row: after
 * its response stream ended). Resolves once the writes are done, so a Lambda invocation ends only then.
 */
export async function answerFirst<T>(requestId: string, answer: (answered: () => void) => Promise<T>): Promise<T> {
  const invocation: Invocation = { startedAt: performance.now(), requestId, writes: [], answered: false };
  const answered = () => void (invocation.answered = true);
  const done = (async () => {
    try {
      return await storage.run(invocation, () => answer(answered));
    } finally {
      answered();
      await runWrites(invocation);
    }
  })();
  const tracked = done.then(
    () => undefined,
    () => undefined,
  );
  inFlight.set(tracked, invocation);
  void tracked.finally(() => inFlight.delete(tracked));
  return done;
}

/**
 * Defers a bookkeeping write until the caller has its answer. Inside an invocation it is queued (and the
 * returned promise resolves at once); outside one it runs now, retried and logged alike.
 */
export function afterAnswer(what: string, write: Write): Promise<void> {
  const invocation = storage.getStore();
  if (invocation) {
    invocation.writes.push({ what, write });
    return Promise.resolve();
  }
  return retried(what, "-", write);
}

/** When the current invocation started (performance.now() clock), for Server-Timing; undefined outside one. */
export const invocationStartedAt = (): number | undefined => storage.getStore()?.startedAt;

/**
 * The flush hook: resolves once every invocation in flight in this process has finished its bookkeeping.
 * Tests that read usage or spans right after a call await it (never a sleep); the local server awaits it
 * before serving a read of what the bookkeeping writes.
 */
export async function bookkeepingSettled(options: { answeredOnly?: boolean } = {}): Promise<void> {
  // answeredOnly: the calls whose answers are complete (a read must not wait for a stream still running).
  const pending = () => [...inFlight].filter(([, invocation]) => !options.answeredOnly || invocation.answered).map(([done]) => done);
  for (let waiting = pending(); waiting.length; waiting = pending()) await Promise.all(waiting);
}

async function runWrites(invocation: Invocation): Promise<void> {
  // Writes queued while the queue runs (a write that defers another) run too.
  while (invocation.writes.length) {
    const batch = invocation.writes.splice(0);
    await Promise.all(batch.map(({ what, write }) => retried(what, invocation.requestId, write)));
  }
}

async function retried(what: string, requestId: string, write: Write): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (attempt + 1 >= ATTEMPTS) {
        // What the write was for and why it failed; never the record itself (it may hold customer content).
        const why = error instanceof Error ? `${error.name}: ${error.message}` : "unknown";
        logger.error("bookkeeping write lost after the answer", { what, requestId, attempts: ATTEMPTS, why: why.slice(0, 300) });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS[attempt] ?? 250));
    }
  }
}
