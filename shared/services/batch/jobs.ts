import { randomUUID } from "node:crypto";
import type * as z from "zod";
import { fileBlobs } from "../../blobs/files.js";
import { startExecution, stopExecution } from "../../engine/executions.js";
import type { Caller } from "../../domain/caller.js";
import { logger } from "../../observability/logger.js";
import type { BatchEndpoint, BatchJobListQuery, BatchJobOut, CreateBatchJobRequest } from "../../schemas/batch.js";
import type { Endpoint } from "../../schemas/model.js";
import { batchStore, type BatchJobFilter } from "../../store/batch.js";
import { fileStore } from "../../store/files.js";
import { head as agentHead } from "../agents/agents.js";
import { countJobRequests, CustomIds, splitLines, type RequestSource } from "./input.js";
import { isFinal, type BatchJobRecord } from "../../domain/batch-rules.js";
import { ApiError, BadRequest, Conflict } from "../../domain/errors.js";
import * as files from "../files/files.js";
import { requireBodyModel } from "../models/catalog.js";

/**
 * Batch jobs as the API sees them: create validates every request line before anything
 * runs, then starts one execution of the batch state machine (shared/engine/batch-machine.ts) whose
 * tasks move the job through its statuses (shared/domain/batch-rules.ts).
 */

/** The model capability each batch endpoint calls. */
export const ENDPOINT_CAPABILITY: Record<BatchEndpoint, Endpoint> = {
  "/v1/chat/completions": "chat",
  "/v1/embeddings": "embeddings",
  "/v1/fim/completions": "fim",
  "/v1/moderations": "moderations",
  "/v1/chat/moderations": "moderations",
  "/v1/classifications": "moderations",
  "/v1/chat/classifications": "moderations",
  "/v1/ocr": "ocr",
  "/v1/conversations": "chat",
};

/** Where create writes a job's inline `requests`, as JSONL (one request a line, in order). */
export const inlineKeyFor = (workspace: string, jobId: string): string => `workspaces/${workspace}/batch/${jobId}/inline.jsonl`;

/** `inline=true` returns the result lines only for jobs this small; larger ones are read from the output file. */
export const INLINE_OUTPUTS_MAX_LINES = 1000;
export const INLINE_OUTPUTS_MAX_BYTES = 1024 * 1024;

/** Parameters of GET /v1/batch/jobs; any other query pair is a metadata filter (the SDK explodes `metadata`). */
const LIST_PARAMETERS = new Set(["page", "page_size", "model", "agent_id", "created_after", "created_by_me", "status", "order_by", "metadata"]);

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class BatchJobNotFound extends ApiError {
  constructor(id: string) {
    super(404, "not_found_error", `No batch job with id '${id}' exists in this workspace`, "batch_job_not_found");
  }
}

export function toBatchJobOut(job: BatchJobRecord, outputs: Record<string, unknown>[] | null = null): BatchJobOut {
  return {
    id: job.id,
    object: "batch",
    input_files: job.inputFiles,
    metadata: job.metadata ?? null,
    endpoint: job.endpoint,
    model: job.model ?? null,
    agent_id: job.agentId ?? null,
    output_file: job.outputFile ?? null,
    error_file: job.errorFile ?? null,
    errors: (job.errors ?? []).map((e) => ({ message: e.message, count: e.count ?? 1 })),
    outputs,
    status: job.status,
    created_at: job.createdAt,
    total_requests: job.totalRequests ?? 0,
    completed_requests: job.completedRequests ?? 0,
    succeeded_requests: job.succeededRequests ?? 0,
    failed_requests: job.failedRequests ?? 0,
    started_at: job.startedAt ?? null,
    completed_at: job.completedAt ?? null,
  };
}

/** An agent answers chat completions and conversations only; its model must still be able to chat. */
async function requireAgent(caller: Caller, agentId: string, endpoint: BatchEndpoint): Promise<void> {
  const agent = await agentHead(caller, agentId);
  if (endpoint !== "/v1/chat/completions" && endpoint !== "/v1/conversations") {
    throw new BadRequest(`Agent '${agentId}' answers /v1/chat/completions and /v1/conversations only, not ${endpoint}`, "agent_endpoint_unsupported", "endpoint");
  }
  await requireBodyModel(caller, agent.model, ENDPOINT_CAPABILITY[endpoint]);
}

/** The input files as sources: each must be the caller's to see (404 otherwise, as the Files API says) and for batch. */
async function inputSources(caller: Caller, fileIds: string[]): Promise<RequestSource[]> {
  const repeated = fileIds.find((id, i) => fileIds.indexOf(id) !== i);
  if (repeated) throw new BadRequest(`input_files lists file '${repeated}' more than once`, "invalid_batch_input", "input_files");
  const sources: RequestSource[] = [];
  for (const id of fileIds) {
    const file = await files.get(caller, id);
    if (file.purpose !== "batch") {
      throw new BadRequest(`File '${id}' has purpose '${file.purpose}'; a batch job reads files uploaded with purpose 'batch'`, "invalid_file_purpose", "input_files");
    }
    sources.push({ key: file.objectKey, fileId: id });
  }
  return sources;
}

/** Inline requests as JSONL; one without a custom_id takes its index, so every result line can be matched. */
function inlineJsonl(requests: NonNullable<CreateBatchJobRequest["requests"]>): string {
  const ids = new CustomIds();
  const source = { fileId: null };
  return requests
    .map((request, i) => {
      const customId = request.custom_id ?? String(i);
      ids.add(customId, source, i + 1);
      return `${JSON.stringify({ custom_id: customId, body: request.body })}\n`;
    })
    .join("");
}

export async function create(caller: Caller, request: CreateBatchJobRequest): Promise<BatchJobRecord> {
  const inputFiles = request.input_files ?? null;
  const requests = request.requests ?? null;
  if ((inputFiles === null) === (requests === null)) {
    throw new BadRequest("Give the job's requests either as input_files or as inline requests, not both or neither", "invalid_batch_input", inputFiles ? "requests" : "input_files");
  }
  const model = request.model ?? null;
  const agentId = request.agent_id ?? null;
  if ((model === null) === (agentId === null)) {
    throw new BadRequest("Name either the model or the agent_id that answers the requests, not both or neither", "invalid_request", model ? "agent_id" : "model");
  }
  if (model !== null) await requireBodyModel(caller, model, ENDPOINT_CAPABILITY[request.endpoint]);
  else await requireAgent(caller, agentId!, request.endpoint);

  const id = randomUUID();
  let inlineKey: string | null = null;
  if (inputFiles) {
    const sources = await inputSources(caller, inputFiles);
    const count = await countJobRequests(sources);
    if (count === 0) throw new BadRequest("The input files hold no requests", "invalid_batch_input", "input_files");
  } else {
    const jsonl = inlineJsonl(requests!);
    inlineKey = inlineKeyFor(caller.workspace, id);
    await fileBlobs.put(inlineKey, Buffer.from(jsonl, "utf8"), "application/jsonl");
  }

  const nowMs = Date.now();
  const createdAt = Math.floor(nowMs / 1000);
  const job: BatchJobRecord = {
    id,
    workspace: caller.workspace,
    organization: caller.organization,
    owner: caller.principal,
    endpoint: request.endpoint,
    model,
    agentId,
    metadata: request.metadata ?? null,
    inputFiles: inputFiles ?? [],
    inlineKey,
    status: "QUEUED",
    createdAt,
    startedAt: null,
    completedAt: null,
    timeoutHours: request.timeout_hours,
    deadline: createdAt + request.timeout_hours * 3600,
    // The Start task counts the requests as it splits them into chunks.
    totalRequests: 0,
    completedRequests: 0,
    succeededRequests: 0,
    failedRequests: 0,
    outputFile: null,
    errorFile: null,
    errors: [],
    executionArn: null,
  };
  await batchStore.create(job, nowMs);

  let executionArn: string;
  try {
    executionArn = await startExecution("batch", id, { workspace: job.workspace, jobId: id });
  } catch (error) {
    // The recorded job says why it will not run, rather than a 500 that leaves behind a QUEUED job nothing runs.
    logger.error("batch execution did not start", { jobId: id, error: error as Error });
    const errors = [{ message: "The job could not be started; create it again", count: 1 }];
    return (await batchStore.transition(job.workspace, id, "FAILED", { errors, completedAt: nowSeconds() })) ?? { ...job, status: "FAILED", errors };
  }
  await batchStore.setFields(job.workspace, id, { executionArn });
  return { ...job, executionArn };
}

/** A job of the caller's workspace; anyone in the workspace sees every job. */
export async function get(caller: Pick<Caller, "workspace">, id: string): Promise<BatchJobRecord> {
  const job = await batchStore.get(caller.workspace, id);
  if (!job) throw new BatchJobNotFound(id);
  return job;
}

/**
 * The result lines of a finished job for `inline=true`: the output file's lines, then the error file's,
 * when together they are small enough; null while the job runs or when they are larger.
 */
export async function outputsOf(job: BatchJobRecord): Promise<Record<string, unknown>[] | null> {
  if (!isFinal(job.status)) return null;
  const ids = [job.outputFile, job.errorFile].filter((f): f is string => Boolean(f));
  const resultFiles = [];
  for (const fileId of ids) {
    const file = await fileStore.get(job.workspace, fileId);
    if (file) resultFiles.push(file);
  }
  if (!resultFiles.length) return null;
  if (resultFiles.reduce((sum, f) => sum + f.bytes, 0) > INLINE_OUTPUTS_MAX_BYTES) return null;
  const outputs: Record<string, unknown>[] = [];
  for (const file of resultFiles) {
    for await (const { text } of splitLines(fileBlobs.read(file.objectKey), { fileId: file.id })) {
      if (text.trim() === "") continue;
      if (outputs.length === INLINE_OUTPUTS_MAX_LINES) return null;
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) outputs.push(value as Record<string, unknown>);
    }
  }
  return outputs;
}

/**
 * Metadata filters from the query: bare `key=value` pairs that are no parameter of the route (what the
 * SDK sends), `metadata[key]=value`, or `metadata` as a JSON object.
 */
export function metadataFilter(query: Record<string, unknown>): Record<string, string> {
  const filter: Record<string, string> = {};
  const put = (key: string, value: unknown) => {
    if (Array.isArray(value)) throw new BadRequest(`The metadata filter '${key}' is given more than once`, "invalid_metadata_filter", key);
    filter[key] = String(value);
  };
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const bracketed = /^metadata\[(.+)\]$/.exec(name);
    if (bracketed) put(bracketed[1]!, value);
    else if (name === "metadata") Object.entries(jsonMetadata(value)).forEach(([k, v]) => put(k, v));
    else if (!LIST_PARAMETERS.has(name)) put(name, value);
  }
  return filter;
}

function jsonMetadata(value: unknown): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = typeof value === "string" ? JSON.parse(value) : undefined;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new BadRequest("metadata must be a JSON object, or be given as key=value pairs", "invalid_metadata_filter", "metadata");
  }
  return parsed as Record<string, unknown>;
}

export async function list(caller: Caller, query: z.infer<typeof BatchJobListQuery>) {
  const filter: BatchJobFilter = {
    owner: query.created_by_me ? caller.principal : undefined,
    model: query.model,
    agentId: query.agent_id,
    statuses: query.status,
    createdAfter: query.created_after ? Math.floor(Date.parse(query.created_after) / 1000) : undefined,
    metadata: metadataFilter(query),
  };
  return batchStore.list(caller.workspace, filter, query.page, query.page_size, query.order_by === "created");
}

const CANCEL_ATTEMPTS = 5;

/** Stops the job's execution (one that has ended already is left alone by stopExecution). */
async function stop(job: BatchJobRecord, cause: string): Promise<void> {
  if (job.executionArn) await stopExecution(job.executionArn, cause);
}

/**
 * Asks a job to stop. A running job only records the request: its chunk tasks see it and stop, and its
 * Finish task writes what was done into the result files and ends it CANCELLED. A job still queued has
 * done nothing, so its execution is stopped and it ends CANCELLED at once.
 */
export async function cancel(caller: Caller, id: string): Promise<BatchJobRecord> {
  for (let attempt = 0; attempt < CANCEL_ATTEMPTS; attempt += 1) {
    const job = await get(caller, id);
    if (job.status === "CANCELLATION_REQUESTED") return job;
    if (isFinal(job.status)) {
      throw new Conflict(`Batch job '${id}' has already finished (${job.status}); only a queued or running job can be cancelled`, "batch_job_finished");
    }
    const requested = await batchStore.transition(caller.workspace, id, "CANCELLATION_REQUESTED");
    // The status moved between the read and the write (or the job is gone): look again.
    if (!requested) continue;
    // The Start task sets startedAt when it moves the job to RUNNING: from then on results are kept.
    if (job.status === "RUNNING" || requested.startedAt) return requested;
    try {
      await stop(requested, "The batch job was cancelled before it started");
    } catch (error) {
      // Nothing has run; the engine's tasks find the job CANCELLED and stop on their own.
      logger.warn("could not stop the execution of a cancelled batch job", { jobId: id, error: error as Error });
    }
    return (await batchStore.transition(caller.workspace, id, "CANCELLED", { completedAt: nowSeconds() })) ?? (await get(caller, id));
  }
  throw new Conflict(`Batch job '${id}' kept changing while it was being cancelled; try again`, "batch_job_busy");
}

/** Stops the job if it is still going, then forgets it. Its result files stay: they are the workspace's Files. */
export async function remove(caller: Caller, id: string): Promise<void> {
  const job = await get(caller, id);
  if (!isFinal(job.status)) await stop(job, "The batch job was deleted");
  if (!(await batchStore.remove(caller.workspace, id))) throw new BatchJobNotFound(id);
  if (job.inlineKey) await fileBlobs.remove(job.inlineKey);
}
