import { appendTelemetry } from "../../blobs/telemetry.js";
import { contentCaptureDefault, telemetryTtl } from "../../config.js";
import type { Caller } from "../../domain/caller.js";
import { asApiError } from "../../domain/errors.js";
import { emptySpan, newSpanId, newTraceId, type TraceContext } from "../../domain/observability/genai.js";
import type { SpanEvaluationRow, SpanRow } from "../../domain/observability/records.js";
import { isoFromNanos } from "../../domain/observability/traces.js";
import { storableNumber } from "../../domain/storage-limits.js";
import { logger } from "../../observability/logger.js";
import { afterAnswer } from "../../observability/after-answer.js";
import { GroupCommit } from "../../domain/group-commit.js";
import { spanStore } from "../../store/observability/spans.js";
import { bookkeepingWrites, inProcessWrites } from "../bookkeeping/store-writes.js";
import { forgetProcessCaches } from "../../domain/process-cache.js";
import { cachedWorkspace } from "../identity/workspace-cache.js";

/**
 * The span writer (docs/observability/ingest.md): every model call the platform makes records one span with
 * the OpenTelemetry GenAI semantic conventions, in the point store (DynamoDB, for reads by trace and span id)
 * and the analytical store (partitioned JSON lines, for search). Telemetry never fails nor holds up the call
 * it describes: a write that fails is logged (without content) and dropped.
 */

export const SERVICE_NAME = "mistral-platform-api";
/** The GenAI provider the caller talks to (`gen_ai.provider.name`): this API speaks Mistral's, whatever backend served it. */
export const PROVIDER_NAME = "mistral_ai";
const SCOPE = { name: "platform.span-writer", version: "1" };

/** Where a model call's span sits: the caller's trace (a `traceparent` header, a workflow run) or a new one. */
export interface SpanParent extends TraceContext {
  /** Set on the spans of a workflow run. */
  workflowName?: string;
}

/** What a span knows when its call starts. */
export interface SpanStart {
  caller: Pick<Caller, "organization" | "workspace" | "principal">;
  parent?: SpanParent;
  /** `gen_ai.operation.name`: chat, text_completion, embeddings, execute_tool, invoke_agent, … */
  operation: string;
  requestModel: string;
  /** Request parameters and identity fields already in span-row form (request_max_tokens, agent_id, conversation_id, …). */
  fields?: Partial<SpanRow>;
  /** Message content (input_messages, system_instructions, tool_definitions), kept only where the workspace captures content. */
  content?: () => Partial<Pick<SpanRow, "input_messages" | "system_instructions" | "tool_definitions">>;
  attributes?: Record<string, string>;
}

/** What a span learns when its call ends. */
export interface SpanEnd {
  responseModel?: string;
  responseId?: string;
  finishReasons?: string[];
  usage?: { input: number; output: number; cacheRead?: number; cacheCreation?: number };
  outputMessages?: () => string;
  error?: unknown;
  attributes?: Record<string, string>;
}

export interface ModelSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Records the span once; later calls do nothing. Never throws. */
  end(outcome?: SpanEnd): Promise<void>;
}

/** Now, in nanoseconds since the epoch, to the microsecond. */
const nowNanos = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;

/** `TELEMETRY_SPANS=off` turns the platform's own spans off for a deployment (OTLP ingest still works). */
export const TELEMETRY_SPANS_ENV = "TELEMETRY_SPANS";
const NO_SPAN: ModelSpan = { traceId: "", spanId: "", end: async () => undefined };

/** Starts a model call's span; `end` writes it. */
export function startSpan(start: SpanStart): ModelSpan {
  if (process.env[TELEMETRY_SPANS_ENV] === "off") return NO_SPAN;
  const started = nowNanos();
  const startedHr = process.hrtime.bigint();
  const traceId = start.parent?.traceId ?? newTraceId();
  const spanId = newSpanId();
  let ended = false;
  return {
    traceId,
    spanId,
    async end(outcome: SpanEnd = {}) {
      if (ended) return;
      ended = true;
      // Timed now; built, checked for content capture and written after the answer (decision 0045).
      const duration = process.hrtime.bigint() - startedHr;
      await afterAnswer("span", () => writeSpan(start, { traceId, spanId, started, duration }, outcome));
    },
  };
}

/** Builds a finished span's row and hands it to the process's batched writer; a failure is retried, then logged (without content). */
async function writeSpan(start: SpanStart, timing: { traceId: string; spanId: string; started: bigint; duration: bigint }, outcome: SpanEnd): Promise<void> {
  const { traceId, spanId, started, duration } = timing;
  const capture = await capturesContent(start.caller);
  const row = emptySpan({ trace_id: traceId, span_id: spanId, workspace_id: start.caller.workspace, organization_id: start.caller.organization });
  const failure = outcome.error === undefined ? undefined : asApiError(outcome.error);
  Object.assign(row, start.fields ?? {}, {
    customer_id: start.caller.organization,
    user_id: start.caller.principal,
    parent_span_id: start.parent?.parentSpanId ?? "",
    trace_state: start.parent?.traceState ?? "",
    start_time: isoFromNanos(started),
    end_time: isoFromNanos(started + duration),
    duration_ns: Number(duration),
    span_name: `${start.operation} ${start.requestModel}`.trim(),
    span_kind: "Client",
    service_name: SERVICE_NAME,
    status_code: failure ? "Error" : "Unset",
    status_message: failure ? failure.message.slice(0, 1000) : "",
    error_type: failure ? (failure.code ?? String(failure.status)) : "",
    operation_name: start.operation,
    provider_name: PROVIDER_NAME,
    request_model: start.requestModel,
    response_model: outcome.responseModel ?? "",
    response_id: outcome.responseId ?? "",
    workflow_name: start.parent?.workflowName ?? start.fields?.workflow_name ?? "",
    response_finish_reasons: outcome.finishReasons ?? [],
    usage_input_tokens: outcome.usage?.input ?? 0,
    usage_output_tokens: outcome.usage?.output ?? 0,
    usage_cache_read_input_tokens: outcome.usage?.cacheRead ?? 0,
    usage_cache_creation_input_tokens: outcome.usage?.cacheCreation ?? 0,
    resource_attributes: { "service.name": SERVICE_NAME, ...deploymentEnvironment() },
    span_attributes: { ...start.attributes, ...outcome.attributes, ...(failure ? { "http.response.status_code": String(failure.status) } : {}) },
    scope_name: SCOPE.name,
    scope_version: SCOPE.version,
  } satisfies Partial<SpanRow>);
  // The request's sampling parameters are the client's numbers: one DynamoDB cannot keep (1e-323) must not lose the span.
  for (const [column, value] of Object.entries(row)) if (typeof value === "number") (row as unknown as Record<string, unknown>)[column] = storableNumber(value);
  if (capture) {
    Object.assign(row, start.content?.() ?? {});
    if (outcome.outputMessages) row.output_messages = outcome.outputMessages();
  }
  await batchedSpanWrites.write(row);
}

function deploymentEnvironment(): Record<string, string> {
  const name = process.env.DEPLOYMENT_ENVIRONMENT ?? process.env.STAGE;
  return name ? { "deployment.environment.name": name } : {};
}

/**
 * The process's one span writer: rows that arrive while a write is in flight go together in the next one
 * (one BatchWriteItem and one telemetry append for them all), so under load the writes per span fall, and
 * a lone span is written at once (no timer holds it back; in Lambda its invocation ends after it). The batch is
 * written where the process runs its bookkeeping (bookkeeping/store-writes.ts: a thread of its own in `npm start`).
 */
const batchedSpanWrites = new GroupCommit<SpanRow>((rows) => bookkeepingWrites().spans(rows), 100);

/** Writes spans to both stores, in this process (OTLP ingest); fails only if a store refused them (callers on a user's call catch and log). */
export const writeSpans = (rows: SpanRow[]): Promise<void> => inProcessWrites.spans(rows);

/**
 * Stores a span evaluation: appended to the analytical store and counted for its trace's `evaluation_count`
 * (the point read of a trace). Evaluation writers (live judging) call this rather than `appendTelemetry`.
 */
export async function recordSpanEvaluation(row: SpanEvaluationRow): Promise<void> {
  await Promise.all([appendTelemetry("span_evaluations", [row]), row.trace_id ? spanStore.countEvaluation(row.workspace_id, row.trace_id, telemetryTtl()) : undefined]);
}

function warnDropped(kind: string, error: unknown): void {
  // The error's name and message only: never the rows (they may hold customer content).
  const why = error instanceof Error ? `${error.name}: ${error.message}` : "unknown";
  logger.warn("telemetry not recorded", { kind, why: why.slice(0, 300) });
}

/** A workspace's content-capture choice, read through the process's workspace cache (identity/workspace-cache.ts). */
export async function capturesContent(caller: Pick<Caller, "organization" | "workspace">): Promise<boolean> {
  try {
    const choice = (await cachedWorkspace(caller))?.telemetryContentCapture;
    return typeof choice === "boolean" ? choice : contentCaptureDefault();
  } catch (error) {
    warnDropped("content-capture setting", error);
    // Unknown choice: keep no content rather than content the workspace may have turned off.
    return false;
  }
}

/** For tests: forget cached workspaces so the next span reads the workspace again (elsewhere a change shows within the cache's TTL). */
export const forgetContentCapture = (): void => forgetProcessCaches();
