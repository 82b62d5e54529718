import { createHash } from "node:crypto";
import type { BatchJobRecord } from "./batch-rules.js";
import type { BatchStatus } from "../schemas/batch.js";
import type { Caller } from "./caller.js";
import { UpstreamError } from "./errors.js";

/**
 * The batch engine's rules: its sizes and limits, its retry policy, the format of its intermediate
 * objects and how a job's end is read. The tasks that apply them are in shared/services/batch/engine/.
 */

/** Requests per chunk: one Map iteration, one Lambda invocation. */
export const CHUNK_SIZE = 100;

/** Model calls in flight at once within one chunk (the Map runs CHUNK_CONCURRENCY chunks at once). */
export const REQUEST_CONCURRENCY = 8;

/** Results are saved and counted every this many finished requests (and when the chunk ends). */
export const CHECKPOINT_EVERY = 10;

/** How old the job's status may be when a request starts: a cancel takes effect within this. */
export const STATUS_CHECK_MS = 1000;

/** A chunk stops starting requests when its invocation has less than this left, and saves what is done. */
export const TIME_MARGIN_MS = 120_000;

/** Chunk objects written at once by Start, and result objects read ahead by Finish. */
export const OBJECT_CONCURRENCY = 8;

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

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Who a job's model calls are made as: the job's owner, with no roles beyond using models. */
export function callerOf(job: Pick<BatchJobRecord, "organization" | "workspace" | "owner">): Caller {
  return { organization: job.organization, workspace: job.workspace, principal: job.owner, principalType: "user", roles: [], admin: false, keyId: "batch" };
}

/** One line of a chunk object. */
export interface ChunkRequest {
  custom_id: string | null;
  body: Record<string, unknown>;
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
export const toSaved = (line: SavedLine) => `${line.ok ? RESULT_TAG : ERROR_TAG}${line.json}`;
export const parseSaved = (text: string | undefined): SavedLine[] =>
  (text ?? "")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => ({ ok: line.startsWith(RESULT_TAG), json: line.slice(1) }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The call, again after a backoff with jitter (or the upstream's Retry-After) while it is throttled or briefly down. */
export async function withRetries<T>(call: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const retryable = error instanceof UpstreamError && RETRYABLE_STATUSES.has(error.status);
      if (!retryable || attempt >= policy.attempts) throw error;
      const backoff = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
      const retryAfter = error.retryAfterSeconds;
      const wait = retryAfter !== undefined ? Math.min(policy.maxMs, retryAfter * 1000) + Math.random() * policy.baseMs : backoff / 2 + (Math.random() * backoff) / 2;
      await sleep(wait);
    }
  }
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

/** The result files' ids follow from the job's, so a retried Finish writes the same files, not new ones. */
export function resultFileId(jobId: string, kind: "output" | "error"): string {
  const hex = createHash("sha256").update(`batch:${jobId}:${kind}`).digest("hex").slice(0, 32).split("");
  hex[12] = "5";
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Errors whose message is written for the job's owner (input problems, a job that vanished). */
const OWNER_FACING = new Set(["BatchInputError", "BadRequest", "NotFound", "BatchEngineError", "BatchJobGone", "BatchChunkIncomplete"]);

const MAX_MESSAGE = 1000;

/** What Step Functions caught, as the message the job shows: never a stack trace or an internal error's text. */
export function failureMessage(failure: { Error?: string; Cause?: string } | undefined): string {
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
