/**
 * The bookkeeping thread's entry (decision 0075): the usage and span batches of `npm start` are written here, with
 * this thread's own SDK clients, off the thread that serves calls. Started by bookkeeping.ts.
 */
import { parentPort } from "node:worker_threads";
import "./env.js";
import { serveWrites } from "../../shared/services/bookkeeping/remote-writes.js";

if (!parentPort) throw new Error("infra/local/bookkeeping-thread.ts runs as a worker thread (infra/local/bookkeeping.ts starts it)");
serveWrites(parentPort);
parentPort.postMessage({ ready: true });
