import { SHARE_ENV, Worker } from "node:worker_threads";
import { bookkeepingSettled } from "../../shared/observability/after-answer.js";
import { remoteWrites } from "../../shared/services/bookkeeping/remote-writes.js";
import { inProcessWrites, writeBookkeepingWith } from "../../shared/services/bookkeeping/store-writes.js";

/** How long a stop waits for the answered calls' bookkeeping. */
const STOP_WAIT_MS = 5_000;

export interface BookkeepingThread {
  /** Batches sent to the thread and not answered yet. */
  pending(): number;
  /** Waits (at most `waitMs`) for the bookkeeping of the calls answered so far, then stops the thread. */
  stop(waitMs?: number): Promise<void>;
}

/**
 * The long-lived server's bookkeeping thread (decision 0075): the group commits' batches of usage records,
 * counter ADDs and spans are written by a worker thread with its own SDK clients, so that their CPU and garbage
 * are not the serving thread's (docs/benchmarks.md §30, §32). If the thread stops, the server writes them itself
 * again; the batches that were out are retried by their callers.
 */
export async function startBookkeepingThread(): Promise<BookkeepingThread> {
  const entry = new URL("./bookkeeping-thread.ts", import.meta.url).href;
  // The thread loads TypeScript as the server does: tsx registered in it first (an inherited --import runs too late
  // for a worker's entry on Node 20).
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, { eval: true, execArgv: [], env: SHARE_ENV, name: "bookkeeping" });
  await booted(worker);
  let stopping = false;
  const writes = remoteWrites(worker, (why) => {
    writeBookkeepingWith(undefined);
    if (!stopping) console.warn(`The bookkeeping thread stopped (${why}): the server writes usage and spans itself from now on`);
  });
  writeBookkeepingWith(writes);
  return {
    pending: writes.pending,
    async stop(waitMs = STOP_WAIT_MS) {
      await settledWithin(waitMs);
      stopping = true;
      writeBookkeepingWith(undefined);
      await worker.terminate();
    },
  };
}

/**
 * The thread as `npm start` runs it: started by the first bookkeeping batch, not with the server, so that a server
 * that serves no model call (most of the test suite's, a CLI's) never pays its start (0.5–1 s of CPU) nor its heap.
 * Until it is ready the server writes the batches itself; if it cannot start, the server goes on doing so, with a
 * warning.
 */
export function bookkeepingThreadOnFirstWrite(): { stop(): Promise<void> } {
  let thread: Promise<BookkeepingThread | undefined> | undefined;
  const start = () =>
    (thread ??= startBookkeepingThread().catch((error: unknown) => {
      console.warn(`The bookkeeping thread did not start (${(error as Error).message}): the server writes usage and spans itself`);
      return undefined;
    }));
  writeBookkeepingWith({
    records: (...args) => (void start(), inProcessWrites.records(...args)),
    addToMonth: (...args) => (void start(), inProcessWrites.addToMonth(...args)),
    addToDay: (...args) => (void start(), inProcessWrites.addToDay(...args)),
    spans: (...args) => (void start(), inProcessWrites.spans(...args)),
  });
  return {
    async stop() {
      const started = await thread;
      if (started) await started.stop();
      else await settledWithin(STOP_WAIT_MS);
      writeBookkeepingWith(undefined);
    },
  };
}

/** Resolves on the thread's first message (its entry is loaded), rejects if it fails or exits before. */
function booted(worker: Worker): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Only these listeners are removed after: removing all of a Worker's takes Node's own, and no reply would arrive.
    const done = (settle: () => void) => {
      worker.off("message", ready).off("error", failed).off("exit", exited);
      settle();
    };
    const ready = () => done(resolve);
    const failed = (error: Error) => done(() => reject(error));
    const exited = (code: number) => done(() => reject(new Error(`the bookkeeping thread exited with code ${code} while starting`)));
    worker.on("message", ready).on("error", failed).on("exit", exited);
  });
}

async function settledWithin(ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([bookkeepingSettled(), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}
