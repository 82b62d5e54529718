import type { MessagePort, Worker } from "node:worker_threads";
import { inProcessWrites, type BookkeepingWrites } from "./store-writes.js";

/**
 * The bookkeeping's store writes across a thread boundary (decision 0075): the serving thread posts each batch
 * (a structured clone of plain records) and awaits the answer; the bookkeeping thread runs the batch with its own
 * SDK clients and answers the value or the error. The group commits and the after-answer retries stay on the
 * serving thread, so their guarantees do not change: a batch the thread did not write rejects, and is retried.
 */

type Operation = keyof BookkeepingWrites;
interface Request {
  id: number;
  op: Operation;
  args: unknown[];
}
type Reply = { id: number; value: unknown } | { id: number; error: { name: string; message: string } };

/** The operations a batch may name: those of the writes themselves. */
const OPERATIONS: ReadonlySet<string> = new Set(Object.keys(inProcessWrites));

/** The bookkeeping thread's side: runs each batch it is sent and answers it. */
export function serveWrites(port: MessagePort, writes: BookkeepingWrites = inProcessWrites): void {
  port.on("message", (request: Request) => {
    void (async (): Promise<Reply> => {
      try {
        if (!OPERATIONS.has(request.op)) throw new Error(`unknown bookkeeping write '${String(request.op)}'`);
        const run = writes[request.op] as (...args: unknown[]) => Promise<unknown>;
        return { id: request.id, value: await run(...request.args) };
      } catch (error) {
        // Name and message only: an SDK error's other fields are not cloneable, and the rows are never echoed.
        const { name, message } = error instanceof Error ? error : { name: "Error", message: String(error) };
        return { id: request.id, error: { name, message } };
      }
    })().then((reply) => port.postMessage(reply));
  });
}

export interface RemoteWrites extends BookkeepingWrites {
  /** Batches sent and not answered yet. */
  pending(): number;
}

/**
 * The serving thread's side. While a batch is out the worker keeps the process alive; when none is it does not.
 * If the worker stops (a crash, terminate), every batch out is rejected (their callers retry) and `onLost` is told.
 */
export function remoteWrites(worker: Worker, onLost: (why: string) => void): RemoteWrites {
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let next = 0;
  let lost: string | undefined;
  worker.unref();
  worker.on("message", (reply: Reply) => {
    const call = waiting.get(reply.id);
    if (!call) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) worker.unref();
    if ("error" in reply) call.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
    else call.resolve(reply.value);
  });
  const lose = (why: string) => {
    if (lost) return;
    lost = why;
    for (const call of waiting.values()) call.reject(new Error(`the bookkeeping thread stopped: ${why}`));
    waiting.clear();
    onLost(why);
  };
  worker.on("error", (error) => lose(error.message));
  worker.on("exit", (code) => lose(`exit code ${code}`));
  const send =
    <R>(op: Operation) =>
    (...args: unknown[]): Promise<R> =>
      new Promise<R>((resolve, reject) => {
        if (lost) return reject(new Error(`the bookkeeping thread stopped: ${lost}`));
        const id = (next += 1);
        if (waiting.size === 0) worker.ref();
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
        worker.postMessage({ id, op, args } satisfies Request);
      });
  return {
    records: send("records"),
    addToMonth: send("addToMonth"),
    addToDay: send("addToDay"),
    spans: send("spans"),
    pending: () => waiting.size,
  };
}
