import { batchBlobs, batchKeys, JsonlObjectWriter } from "../../../blobs/batch.js";
import { BatchEngineError, BatchJobGone, failureMessage, finalStatusOf, nowSeconds, OBJECT_CONCURRENCY, parseSaved, resultFileId, type SavedLine } from "../../../domain/batch-engine.js";
import { isFinal, type BatchJobRecord } from "../../../domain/batch-rules.js";
import { objectKeyFor, type FileRecord } from "../../../domain/file-rules.js";
import type { BatchChunk, BatchExecutionInput, BatchFailure, BatchStarted } from "../../../engine/batch-machine.js";
import { logger } from "../../../observability/logger.js";
import type { BatchStatus } from "../../../schemas/batch.js";
import type { SampleType } from "../../../schemas/file.js";
import { batchProgressStore } from "../../../store/batch-progress.js";
import { batchStore } from "../../../store/batch.js";
import { fileStore } from "../../../store/files.js";

/**
 * Finish joins the chunks' results into the output and error files and sets the final status;
 * RecordFailure ends a job that could not run: FAILED, with a message fit for the job's `errors`.
 */

export interface FinishOptions {
  /** Multipart part size of the result files (tests make it small to exercise multipart uploads). */
  partBytes?: number;
}

export interface BatchFinished extends BatchExecutionInput {
  status: BatchStatus;
}

export async function finish(started: BatchStarted, options: FinishOptions = {}): Promise<BatchFinished> {
  const { workspace, jobId } = started;
  const job = await batchStore.get(workspace, jobId);
  if (!job) throw new BatchJobGone(jobId);
  const chunks = await readManifest(workspace, jobId);
  // A retried Finish after the job ended: only the clean-up may be left to do.
  if (isFinal(job.status)) {
    await cleanUp(workspace, jobId, chunks);
    return { workspace, jobId, status: job.status };
  }
  const files = await writeResultFiles(job, chunks, options.partBytes);
  const ended = await settle(job, files);
  await cleanUp(workspace, jobId, chunks);
  return { workspace, jobId, status: ended.status };
}

async function readManifest(workspace: string, jobId: string): Promise<BatchChunk[]> {
  const text = await batchBlobs.text(batchKeys.manifest(workspace, jobId));
  return text === undefined ? [] : (JSON.parse(text) as BatchChunk[]);
}

/** Every saved line of every chunk in chunk order, reading a few result objects ahead. */
async function* savedLines(workspace: string, jobId: string, chunks: BatchChunk[]): AsyncGenerator<SavedLine> {
  const reads: (Promise<string | undefined> | undefined)[] = [];
  const fetch = (i: number) => {
    const read = batchBlobs.text(batchKeys.results(workspace, jobId, chunks[i]!.index));
    read.catch(() => undefined);
    reads[i] = read;
  };
  for (let i = 0; i < Math.min(OBJECT_CONCURRENCY, chunks.length); i += 1) fetch(i);
  for (let i = 0; i < chunks.length; i += 1) {
    const text = await reads[i];
    reads[i] = undefined;
    if (i + OBJECT_CONCURRENCY < chunks.length) fetch(i + OBJECT_CONCURRENCY);
    yield* parseSaved(text);
  }
}

interface ResultFiles {
  outputFile: string | null;
  errorFile: string | null;
}

async function writeResultFiles(job: BatchJobRecord, chunks: BatchChunk[], partBytes: number | undefined): Promise<ResultFiles> {
  const outputId = resultFileId(job.id, "output");
  const errorId = resultFileId(job.id, "error");
  const output = new JsonlObjectWriter(objectKeyFor(job.workspace, outputId), partBytes);
  const errors = new JsonlObjectWriter(objectKeyFor(job.workspace, errorId), partBytes);
  let written: [boolean, boolean];
  try {
    for await (const line of savedLines(job.workspace, job.id, chunks)) await (line.ok ? output : errors).write(line.json);
    written = [await output.close(), await errors.close()];
  } catch (error) {
    await Promise.allSettled([output.abort(), errors.abort()]);
    throw error;
  }
  return {
    outputFile: written[0] ? await recordFile(job, outputId, "batch_result", output) : null,
    errorFile: written[1] ? await recordFile(job, errorId, "batch_error", errors) : null,
  };
}

async function recordFile(job: BatchJobRecord, id: string, sampleType: SampleType, writer: JsonlObjectWriter): Promise<string> {
  const nowMs = Date.now();
  const file: FileRecord = {
    id,
    workspace: job.workspace,
    organization: job.organization,
    owner: job.owner,
    filename: `batch_${job.id}_${sampleType === "batch_result" ? "output" : "error"}.jsonl`,
    bytes: writer.bytes,
    createdAt: Math.floor(nowMs / 1000),
    purpose: "batch",
    sampleType,
    source: "mistral",
    mimetype: "application/jsonl",
    numLines: writer.lines,
    signature: null,
    expiresAt: null,
    visibility: "workspace",
    objectKey: writer.key,
  };
  // false: the record a previous run of Finish created, with the same id, over the same bytes.
  await fileStore.create(file, nowMs);
  return id;
}

/** Moves the job to its final status, re-reading it when a cancel or another writer got there first. */
async function settle(job: BatchJobRecord, files: ResultFiles): Promise<BatchJobRecord> {
  let current: BatchJobRecord | undefined = job;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (!current) throw new BatchJobGone(job.id);
    if (isFinal(current.status)) return current;
    const now = nowSeconds();
    const ended = await batchStore.transition(job.workspace, job.id, finalStatusOf(current, now), { ...files, completedAt: now });
    if (ended) return ended;
    current = await batchStore.get(job.workspace, job.id);
  }
  throw new BatchEngineError("The job's status kept changing while it was being finished");
}

/** Removes the engine's own objects and the progress marks; a failure here only leaves litter, so it is logged. */
async function cleanUp(workspace: string, jobId: string, chunks: BatchChunk[]): Promise<void> {
  try {
    await batchBlobs.removeAll([
      ...chunks.flatMap((chunk) => [chunk.key, batchKeys.results(workspace, jobId, chunk.index)]),
      batchKeys.manifest(workspace, jobId),
    ]);
    await batchProgressStore.close(workspace, jobId);
  } catch (error) {
    logger.warn("batch job objects not cleaned up", { error: error as Error, jobId });
  }
}

export async function recordFailure(input: BatchFailure): Promise<void> {
  const { workspace, jobId } = input;
  logger.error("batch job failed", { failure: input.failure, jobId });
  const job = await batchStore.transition(workspace, jobId, "FAILED", { errors: [{ message: failureMessage(input.failure), count: 1 }], completedAt: nowSeconds() });
  if (!job) logger.warn("batch job not marked FAILED: it is gone or over already", { jobId });
  await cleanUp(workspace, jobId, await readManifest(workspace, jobId).catch(() => []));
}

