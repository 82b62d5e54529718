import { createHash, randomUUID } from "node:crypto";
import type * as z from "zod";
import { batchBlobs, batchKeys, JsonlObjectWriter } from "../blobs/batch.js";
import { filesBucket } from "../config.js";
import type { BatchChunk, BatchChunkTask, BatchExecutionInput, BatchFailure, BatchStarted } from "../engine/batch-machine.js";
import type { Caller } from "./caller.js";
import { toWireError, zodIssues } from "../http/errors.js";
import { logger } from "../observability/logger.js";
import type { Reply } from "../http/reply.js";
import { AgentsCompletionRequest } from "../schemas/agent.js";
import type { BatchStatus } from "../schemas/batch.js";
import type { SampleType } from "../schemas/file.js";
import { ChatCompletionRequest, EmbeddingRequest, FimCompletionRequest, ModerationRequest } from "../schemas/inference.js";
import { batchProgressStore } from "../store/batch-progress.js";
import { batchStore, type BatchJobRecord } from "../store/batch.js";
import { fileStore } from "../store/files.js";
import * as agentCompletions from "../services/agents/completions.js";
import { readJobRequests, requestSourcesOf } from "../services/batch/input.js";
import { isFinal } from "./batch-rules.js";
import * as completions from "../services/inference/completions.js";
import { forEachWhile } from "./concurrency.js";
import { embed } from "../services/inference/embeddings.js";
import { ApiError, BadRequest, Unprocessable } from "./errors.js";
import { objectKeyFor, type FileRecord } from "./file-rules.js";
import { moderate } from "../services/inference/moderations.js";

/**
 * The batch engine: the four tasks of the state machine in shared/engine/batch-machine.ts.
 *
 *   start         QUEUED → RUNNING, splits the requests into chunk objects and writes their manifest
 *   runChunk      calls the model for each request of one chunk, saving results and counting as it goes
 *   finish        joins the chunks' results into the output and error files, sets the final status
 *   recordFailure the job could not run: FAILED, with a message fit for the job's `errors`
 *
 * Every status write goes through batchStore.transition, conditional on the status it leaves.
 */

/** Requests per chunk: one Map iteration, one Lambda invocation. */
export const CHUNK_SIZE = 100;

/** Model calls in flight at once within one chunk (the Map runs CHUNK_CONCURRENCY chunks at once). */
export const REQUEST_CONCURRENCY = 8;

/**
 * BATCH_REQUEST_CONCURRENCY overrides it per deployment (an upstream with tight rate limits wants fewer
 * calls in flight, the offline provider more); read per chunk.
 */
export function requestConcurrency(): number {
  const configured = Number(process.env.BATCH_REQUEST_CONCURRENCY);
  return Number.isInteger(configured) && configured > 0 ? configured : REQUEST_CONCURRENCY;
}

/** Results are saved and counted every this many finished requests (and when the chunk ends). */
export const CHECKPOINT_EVERY = 10;

/** How old the job's status may be when a request starts: a cancel takes effect within this. */
export const STATUS_CHECK_MS = 1000;

/** A chunk stops starting requests when its invocation has less than this left, and saves what is done. */
const TIME_MARGIN_MS = 120_000;

/** Chunk objects written at once by Start, and result objects read ahead by Finish. */
const OBJECT_CONCURRENCY = 8;

/** Retries of one request on throttling (429) and on an upstream that is briefly unavailable. */
export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const THROTTLE_RETRY: RetryPolicy = { attempts: 5, baseMs: 1000, maxMs: 30_000 };

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** A failure the job record may show as it is: its message says what went wrong, without internals. */
export class BatchEngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class BatchJobGone extends BatchEngineError {
  constructor(jobId: string) {
    super(`The batch job '${jobId}' no longer exists`);
  }
}

/** A chunk stopped before its end because its invocation was running out of time; running it again resumes it. */
export class BatchChunkIncomplete extends BatchEngineError {
  constructor(index: number, done: number, count: number) {
    super(`Chunk ${index} stopped after ${done} of its ${count} requests: its invocation ran out of time (its results so far are saved)`);
  }
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Who a job's model calls are made as: the job's owner, with no roles beyond using models. */
export function callerOf(job: Pick<BatchJobRecord, "organization" | "workspace" | "owner">): Caller {
  return { organization: job.organization, workspace: job.workspace, principal: job.owner, principalType: "user", roles: [], admin: false, keyId: "batch" };
}

// ---------------------------------------------------------------------------------------------------
// Start

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

/** One line of a chunk object. */
interface ChunkRequest {
  custom_id: string | null;
  body: Record<string, unknown>;
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

// ---------------------------------------------------------------------------------------------------
// RunChunk

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

/** One finished request as the chunk's result object keeps it: which file it goes to, and its line. */
export interface SavedLine {
  ok: boolean;
  json: string;
}

// In the intermediate object each line is tagged with the file it goes to, so a chunk's results are one
// object written in one PUT (never half of them in one place and half in another).
const RESULT_TAG = "R";
const ERROR_TAG = "E";
const toSaved = (line: SavedLine) => `${line.ok ? RESULT_TAG : ERROR_TAG}${line.json}`;
const parseSaved = (text: string | undefined): SavedLine[] =>
  (text ?? "")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => ({ ok: line.startsWith(RESULT_TAG), json: line.slice(1) }));

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

/** One request, end to end: its output line, or its error line when it fails (a failed request never fails the chunk). */
export async function runRequest(job: BatchJobRecord, request: ChunkRequest, retry: RetryPolicy = THROTTLE_RETRY): Promise<SavedLine> {
  const id = `batch-${randomUUID()}`;
  const custom_id = request.custom_id ?? null;
  try {
    const body = await callEndpoint(job, request.body, id, retry);
    return { ok: true, json: JSON.stringify({ id, custom_id, response: { status_code: 200, body }, error: null }) };
  } catch (error) {
    const wire = toWireError(error);
    const known = error instanceof ApiError || error instanceof Unprocessable || (error as Error).name === "UpstreamError" || (error as Error).name === "UnsupportedByProvider";
    if (!known) logger.error("batch request failed", { error: error as Error, jobId: job.id });
    const message = known ? (error as Error).message : ((wire.body as { message?: string }).message ?? "Internal server error");
    return { ok: false, json: JSON.stringify({ id, custom_id, response: null, error: { message, code: wire.status } }) };
  }
}

async function callEndpoint(job: BatchJobRecord, body: Record<string, unknown>, requestId: string, retry: RetryPolicy): Promise<unknown> {
  const call = requestFor(job, body);
  const ctx: completions.CallContext = { caller: callerOf(job), requestId, route: `batch POST ${job.endpoint}` };
  const reply = await withRetries(() => call(ctx), retry);
  if (reply.status !== 200 || typeof reply.body !== "string") throw new Error(`The endpoint answered ${reply.status} without a JSON body`);
  return JSON.parse(reply.body);
}

function validated<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw new Unprocessable(zodIssues(result.error, "body"));
  return result.data;
}

/**
 * The call a request body stands for, validated as the synchronous route validates it: the job's model
 * replaces the body's (or the job's agent answers), and nothing streams.
 */
function requestFor(job: BatchJobRecord, body: Record<string, unknown>): (ctx: completions.CallContext) => Promise<Reply> {
  const model = job.model ?? body.model;
  switch (job.endpoint) {
    case "/v1/chat/completions": {
      if (job.agentId) {
        const { model: _model, ...rest } = body;
        const request = validated(AgentsCompletionRequest, { ...rest, agent_id: job.agentId, stream: false });
        return (ctx) => agentCompletions.complete(ctx, request);
      }
      const request = validated(ChatCompletionRequest, { ...body, model, stream: false });
      return (ctx) => completions.chat(ctx, request);
    }
    case "/v1/fim/completions": {
      const request = validated(FimCompletionRequest, { ...body, model, stream: false });
      return (ctx) => completions.fim(ctx, request);
    }
    case "/v1/embeddings": {
      const request = validated(EmbeddingRequest, { ...body, model });
      return (ctx) => embed(ctx, request);
    }
    case "/v1/moderations": {
      const request = validated(ModerationRequest, { ...body, model });
      return (ctx) => moderate(ctx, request);
    }
    default:
      throw new BadRequest(`Batch jobs do not serve the endpoint '${String(job.endpoint)}'`, "unsupported_endpoint");
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The call, again after a backoff with jitter (or the upstream's Retry-After) while it is throttled or briefly down. */
export async function withRetries<T>(call: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      const retryable = (error as Error).name === "UpstreamError" && typeof status === "number" && RETRYABLE_STATUSES.has(status);
      if (!retryable || attempt >= policy.attempts) throw error;
      const backoff = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
      const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
      const wait = retryAfter !== undefined ? Math.min(policy.maxMs, retryAfter * 1000) + Math.random() * policy.baseMs : backoff / 2 + (Math.random() * backoff) / 2;
      await sleep(wait);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Finish

export interface FinishOptions {
  /** Multipart part size of the result files (tests make it small to exercise multipart uploads). */
  partBytes?: number;
}

export interface BatchFinished extends BatchExecutionInput {
  status: BatchStatus;
}

/** The status a job that ran ends in. */
export function finalStatusOf(job: Pick<BatchJobRecord, "status" | "deadline" | "completedRequests" | "totalRequests">, now: number): BatchStatus {
  switch (job.status) {
    case "CANCELLATION_REQUESTED":
      return "CANCELLED";
    case "RUNNING":
      return now >= job.deadline && job.completedRequests < job.totalRequests ? "TIMEOUT_EXCEEDED" : "SUCCESS";
    default:
      throw new BatchEngineError(`The job cannot be finished from status ${job.status}`);
  }
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

/** The result files' ids follow from the job's, so a retried Finish writes the same files, not new ones. */
export function resultFileId(jobId: string, kind: "output" | "error"): string {
  const hex = createHash("sha256").update(`batch:${jobId}:${kind}`).digest("hex").slice(0, 32).split("");
  hex[12] = "5";
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
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
  try {
    await fileStore.create(file, nowMs);
  } catch (error) {
    // The record a previous run of Finish created: the same id, over the same bytes.
    if ((error as Error).name !== "TransactionCanceledException") throw error;
  }
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

// ---------------------------------------------------------------------------------------------------
// RecordFailure

/** Errors whose message is written for the job's owner (input problems, a job that vanished). */
const OWNER_FACING = new Set(["BatchInputError", "BadRequest", "NotFound", "BatchEngineError", "BatchJobGone", "BatchChunkIncomplete"]);

const MAX_MESSAGE = 1000;

/** What Step Functions caught, as the message the job shows: never a stack trace or an internal error's text. */
export function failureMessage(failure: BatchFailure["failure"] | undefined): string {
  const error = failure?.Error ?? "";
  const cause = parseCause(failure?.Cause);
  const type = cause.type ?? error;
  if ((OWNER_FACING.has(type) || OWNER_FACING.has(error)) && cause.message) return cause.message;
  if (error === "States.Timeout" || type === "Sandbox.Timedout" || /task timed out/i.test(cause.message ?? "")) {
    return "A step of the batch job ran out of time before it finished";
  }
  if (error === "States.ItemReaderFailed") return "The batch job's list of request chunks could not be read";
  if (error === "States.DataLimitExceeded") return "The batch job's state grew beyond what the engine can carry";
  return "The batch job could not run because of an internal error";
}

/** Lambda's Cause is JSON ({errorType, errorMessage, trace}); other sources give plain text. Keeps the first line. */
function parseCause(cause: string | undefined): { type?: string; message?: string } {
  if (!cause) return {};
  let type: string | undefined;
  let message = cause;
  try {
    const parsed = JSON.parse(cause) as { errorType?: unknown; errorMessage?: unknown };
    if (typeof parsed === "object" && parsed !== null) {
      type = typeof parsed.errorType === "string" ? parsed.errorType : undefined;
      message = typeof parsed.errorMessage === "string" ? parsed.errorMessage : "";
    }
  } catch {
    // plain text
  }
  const firstLine = message.split("\n")[0]!.trim();
  return { type, message: firstLine.length > MAX_MESSAGE ? `${firstLine.slice(0, MAX_MESSAGE - 1)}…` : firstLine || undefined };
}

export async function recordFailure(input: BatchFailure): Promise<void> {
  const { workspace, jobId } = input;
  logger.error("batch job failed", { failure: input.failure, jobId });
  const job = await batchStore.transition(workspace, jobId, "FAILED", { errors: [{ message: failureMessage(input.failure), count: 1 }], completedAt: nowSeconds() });
  if (!job) logger.warn("batch job not marked FAILED: it is gone or over already", { jobId });
  await cleanUp(workspace, jobId, await readManifest(workspace, jobId).catch(() => []));
}
