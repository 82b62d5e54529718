import { batchBlobs, batchKeys } from "../../../blobs/batch.js";
import {
  BatchChunkIncomplete,
  BatchEngineError,
  CHECKPOINT_EVERY,
  parseSaved,
  REQUEST_CONCURRENCY,
  STATUS_CHECK_MS,
  THROTTLE_RETRY,
  TIME_MARGIN_MS,
  toSaved,
  type ChunkRequest,
  type RetryPolicy,
  type SavedLine,
} from "../../../domain/batch-engine.js";
import type { BatchJobRecord } from "../../../domain/batch-rules.js";
import { forEachWhile } from "../../../domain/concurrency.js";
import type { BatchChunkTask } from "../../../engine/batch-machine.js";
import { batchProgressStore } from "../../../store/batch-progress.js";
import { batchStore } from "../../../store/batch.js";
import { runRequest } from "./requests.js";

/** RunChunk: calls the model for each request of one chunk, saving results and counting as it goes. */

/**
 * BATCH_REQUEST_CONCURRENCY overrides it per deployment (an upstream with tight rate limits wants fewer
 * calls in flight, the offline provider more); read per chunk.
 */
export function requestConcurrency(): number {
  const configured = Number(process.env.BATCH_REQUEST_CONCURRENCY);
  return Number.isInteger(configured) && configured > 0 ? configured : REQUEST_CONCURRENCY;
}

export interface ChunkOptions {
  retry?: RetryPolicy;
  /** Milliseconds the invocation has left (Lambda's context); unbounded when absent. */
  timeLeftMs?: () => number;
  statusCheckMs?: number;
}

type StopReason = "cancelled" | "timeout" | "gone" | "not running";

/** The job's status as a chunk sees it, re-read at most every STATUS_CHECK_MS. */
class JobWatch {
  job: BatchJobRecord | undefined;
  reason: StopReason | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly workspace: string,
    private readonly jobId: string,
    private readonly checkEveryMs: number,
  ) {}

  async stopReason(): Promise<StopReason | undefined> {
    if (this.reason) return this.reason;
    if (Date.now() - this.checkedAt >= this.checkEveryMs) {
      this.loading ??= this.load().finally(() => (this.loading = undefined));
      await this.loading;
    }
    // Requests are not started after the deadline; Finish then ends the job TIMEOUT_EXCEEDED.
    if (!this.reason && this.job && Date.now() >= this.job.deadline * 1000) this.reason = "timeout";
    return this.reason;
  }

  private async load(): Promise<void> {
    const job = await batchStore.get(this.workspace, this.jobId);
    this.checkedAt = Date.now();
    if (!job) this.reason = "gone";
    else {
      this.job = job;
      if (job.status === "CANCELLATION_REQUESTED") this.reason = "cancelled";
      else if (job.status !== "RUNNING") this.reason = "not running";
    }
  }
}

/**
 * A chunk's finished requests, saved (one object, the finished prefix in input order) and then counted
 * on the job with the chunk's progress mark, so a retried chunk resumes after what was saved and counts
 * only what was not counted yet.
 */
class ChunkCheckpoint {
  private readonly lines: (SavedLine | undefined)[];
  private finished: number;
  private saving: Promise<void> | undefined;
  failure: unknown;
  gone = false;

  constructor(
    private readonly job: Pick<BatchJobRecord, "workspace" | "id">,
    private readonly index: number,
    private readonly key: string,
    saved: SavedLine[],
    private savedUpTo: number,
    private countedUpTo: number,
  ) {
    this.lines = [...saved];
    this.finished = saved.length;
  }

  get done(): number {
    return this.finished;
  }

  record(at: number, line: SavedLine): void {
    this.lines[at] = line;
    while (this.lines[this.finished] !== undefined) this.finished += 1;
    if (!this.saving && this.finished - this.savedUpTo >= CHECKPOINT_EVERY) {
      this.saving = this.save()
        .catch((error: unknown) => void (this.failure ??= error))
        .finally(() => (this.saving = undefined));
    }
  }

  /** Saves and counts everything finished; throws what a background save hit. */
  async flush(): Promise<void> {
    await this.saving;
    if (this.failure === undefined) await this.save();
    if (this.failure !== undefined) throw this.failure;
  }

  private async save(): Promise<void> {
    const to = this.finished;
    if (to > this.savedUpTo) {
      await batchBlobs.put(this.key, this.lines.slice(0, to).map((line) => `${toSaved(line!)}\n`).join(""));
      this.savedUpTo = to;
    }
    if (to > this.countedUpTo && !this.gone) {
      const counted = this.lines.slice(this.countedUpTo, to);
      const succeeded = counted.filter((line) => line!.ok).length;
      const outcome = await batchProgressStore.advance(this.job.workspace, this.job.id, this.index, this.countedUpTo, to, {
        completedRequests: counted.length,
        succeededRequests: succeeded,
        failedRequests: counted.length - succeeded,
      });
      if (outcome === "gone") this.gone = true;
      else if (outcome === "conflict") throw new BatchEngineError(`Chunk ${this.index} was counted by another run of it at the same time`);
      else this.countedUpTo = to;
    }
  }
}

export async function runChunk(input: BatchChunkTask, options: ChunkOptions = {}): Promise<void> {
  const { workspace, jobId } = input.job;
  const { chunk } = input;
  const watch = new JobWatch(workspace, jobId, options.statusCheckMs ?? STATUS_CHECK_MS);
  // Even a stopped job's chunk goes on to its checkpoint: results a previous run saved must still be counted.
  if ((await watch.stopReason()) === "gone") return;
  const job = watch.job!;

  const text = await batchBlobs.text(chunk.key);
  if (text === undefined) throw new BatchEngineError(`Chunk ${chunk.index} of the job's requests is missing`);
  const requests = text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as ChunkRequest);
  const resultsKey = batchKeys.results(workspace, jobId, chunk.index);
  const saved = parseSaved(await batchBlobs.text(resultsKey)).slice(0, requests.length);
  const counted = await batchProgressStore.counted(workspace, jobId, chunk.index);
  if (counted === undefined) return;
  const checkpoint = new ChunkCheckpoint(job, chunk.index, resultsKey, saved, saved.length, counted);

  let outOfTime = false;
  const proceed = async () => {
    if (checkpoint.failure !== undefined || checkpoint.gone) return false;
    if (options.timeLeftMs && options.timeLeftMs() < TIME_MARGIN_MS) {
      outOfTime = true;
      return false;
    }
    return !(await watch.stopReason());
  };
  const rest = requests.slice(saved.length);
  await forEachWhile(rest, requestConcurrency(), proceed, async (request, i) => {
    checkpoint.record(saved.length + i, await runRequest(job, request, options.retry ?? THROTTLE_RETRY));
  });
  await checkpoint.flush();
  if (outOfTime && checkpoint.done < requests.length) throw new BatchChunkIncomplete(chunk.index, checkpoint.done, requests.length);
}

