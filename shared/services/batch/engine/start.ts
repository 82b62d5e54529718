import { batchBlobs, batchKeys } from "../../../blobs/batch.js";
import { filesBucket } from "../../../config.js";
import { BatchJobGone, CHUNK_SIZE, nowSeconds, OBJECT_CONCURRENCY, type ChunkRequest } from "../../../domain/batch-engine.js";
import type { BatchJobRecord } from "../../../domain/batch-rules.js";
import type { BatchChunk, BatchExecutionInput, BatchStarted } from "../../../engine/batch-machine.js";
import { logger } from "../../../observability/logger.js";
import { batchProgressStore } from "../../../store/batch-progress.js";
import { batchStore } from "../../../store/batch.js";
import { readJobRequests, requestSourcesOf } from "../input.js";

/** Start (QUEUED → RUNNING): splits the job's requests into chunk objects and writes their manifest. */

export async function start(input: BatchExecutionInput): Promise<BatchStarted> {
  const { workspace, jobId } = input;
  const started: BatchStarted = { workspace, jobId, bucket: filesBucket(), manifestKey: batchKeys.manifest(workspace, jobId) };
  // A retried Start finds the job RUNNING already, and splits the requests again into the same chunks.
  const job = (await batchStore.transition(workspace, jobId, "RUNNING", { startedAt: nowSeconds() })) ?? (await batchStore.get(workspace, jobId));
  if (!job) throw new BatchJobGone(jobId);
  if (job.status !== "RUNNING") {
    // Cancelled before it started (or over already): nothing to run, and Finish ends it.
    await batchBlobs.put(started.manifestKey, "[]", "application/json");
    return started;
  }
  const chunks = await writeChunks(job);
  await batchProgressStore.open(workspace, jobId);
  await batchStore.setFields(workspace, jobId, { totalRequests: chunks.reduce((sum, chunk) => sum + chunk.count, 0) });
  await batchBlobs.put(started.manifestKey, JSON.stringify(chunks), "application/json");
  return started;
}

/** Streams the job's requests into chunk objects; a bad input removes the chunks written so far. */
async function writeChunks(job: BatchJobRecord): Promise<BatchChunk[]> {
  const chunks: BatchChunk[] = [];
  const writing = new Set<Promise<void>>();
  let lines: string[] = [];
  const flush = async () => {
    const chunk: BatchChunk = { index: chunks.length, key: batchKeys.chunk(job.workspace, job.id, chunks.length), count: lines.length };
    const body = `${lines.join("\n")}\n`;
    lines = [];
    chunks.push(chunk);
    while (writing.size >= OBJECT_CONCURRENCY) await Promise.race(writing);
    const put: Promise<void> = batchBlobs.put(chunk.key, body).finally(() => writing.delete(put));
    // Raced or awaited later; a failure meanwhile must not count as unhandled.
    put.catch(() => undefined);
    writing.add(put);
  };
  try {
    for await (const request of readJobRequests(await requestSourcesOf(job))) {
      lines.push(JSON.stringify({ custom_id: request.custom_id, body: request.body } satisfies ChunkRequest));
      if (lines.length === CHUNK_SIZE) await flush();
    }
    if (lines.length) await flush();
    await Promise.all(writing);
    return chunks;
  } catch (error) {
    await Promise.allSettled(writing);
    await batchBlobs.removeAll(chunks.map((c) => c.key)).catch((cleanup: unknown) => logger.warn("chunks not removed", { error: cleanup as Error }));
    throw error;
  }
}
