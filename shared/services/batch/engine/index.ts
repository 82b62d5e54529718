/**
 * The batch engine: the four tasks of the state machine in shared/engine/batch-machine.ts.
 *
 *   start         QUEUED → RUNNING, splits the requests into chunk objects and writes their manifest
 *   runChunk      calls the model for each request of one chunk, saving results and counting as it goes
 *   finish        joins the chunks' results into the output and error files, sets the final status
 *   recordFailure the job could not run: FAILED, with a message fit for the job's `errors`
 *
 * Every status write goes through batchStore.transition, conditional on the status it leaves. The
 * engine's rules (sizes, retries, final statuses, failure messages) are in shared/domain/batch-engine.ts.
 */
export { start } from "./start.js";
export { runChunk, requestConcurrency, type ChunkOptions } from "./run-chunk.js";
export { runRequest } from "./requests.js";
export { finish, recordFailure, type BatchFinished, type FinishOptions } from "./finish.js";
export { CHECKPOINT_EVERY, REQUEST_CONCURRENCY, type RetryPolicy } from "../../../domain/batch-engine.js";
