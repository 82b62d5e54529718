import type { Caller } from "../../domain/caller.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { otlpFromSpans } from "../../domain/observability/otlp.js";
import { spansOfTrace } from "../observability/point-reads.js";
import { mergeSameId, spanTreeOf, traceEventsOf } from "../../domain/workflows/trace-summary.js";
import { latestRun, toExecutionOut } from "./executions.js";
import { entriesOf } from "./history.js";

/**
 * Traces of executions (reference/workflows.md rows 28–29; docs/workflows.md, "Traces"). Every execution
 * gets an OpenTelemetry trace id at execute time: the `traceparent`'s (W3C trace context) unless
 * `force_new_trace`, else a new one; its next runs and its children keep it. The spans are read in one
 * place, `executionTrace`: the spans the span writer recorded under the run's trace id (its model calls,
 * and spans an SDK exported into the same trace), from the telemetry table.
 */

/** OA:TempoGetTraceResponse: OpenTelemetry resource spans, grouped in batches. */
export interface OtelTraceData {
  batches: Record<string, unknown>[];
}

/** The data source the trace answer names when there are spans: the platform's own span store ("none" without). */
export const TRACE_DATA_SOURCE = "platform-telemetry";

/**
 * THE seam for span data: where an execution's spans (its model calls and activities, written by the
 * observability span writer under the run's trace id) are read, as OpenTelemetry resource spans. A run
 * without a trace id or without spans has no data.
 */
export async function executionTrace(run: RunRecord): Promise<{ dataSource: string; data: OtelTraceData | null }> {
  if (!run.traceId) return { dataSource: "none", data: null };
  const spans = await spansOfTrace(run.workspace, run.traceId);
  return spans.length ? { dataSource: TRACE_DATA_SOURCE, data: { batches: otlpFromSpans(spans) as Record<string, unknown>[] } } : { dataSource: "none", data: null };
}

/** GET /v1/workflows/executions/{execution_id}/trace/info. */
export async function traceInfo(caller: Pick<Caller, "workspace">, executionId: string): Promise<{ otel_trace_id: string | null; has_trace_data: boolean }> {
  const run = await latestRun(caller, executionId);
  const trace = await executionTrace(run);
  return { otel_trace_id: run.traceId ?? null, has_trace_data: trace.data !== null && trace.data.batches.length > 0 };
}

/** GET /v1/workflows/executions/{execution_id}/trace/otel: the execution, and its trace in OpenTelemetry form. */
export async function traceOtel(caller: Pick<Caller, "workspace">, executionId: string) {
  const run = await latestRun(caller, executionId);
  const trace = await executionTrace(run);
  return { ...toExecutionOut(run), data_source: trace.dataSource, otel_trace_id: run.traceId ?? null, otel_trace_data: trace.data };
}

/** The execution's fields both trace answers start with (OA:WorkflowExecutionTraceSummaryResponse, …EventsResponse). */
const traceHead = (run: RunRecord) => {
  const { registered_by: _registeredBy, ...execution } = toExecutionOut(run);
  return execution;
};

/** GET /v1/workflows/executions/{execution_id}/trace/summary: the latest run as a span tree (decision 0064). */
export async function traceSummary(caller: Pick<Caller, "workspace">, executionId: string) {
  const run = await latestRun(caller, executionId);
  const [entries, kept] = await Promise.all([entriesOf(run), run.traceId ? spansOfTrace(run.workspace, run.traceId) : Promise.resolve([])]);
  return { ...traceHead(run), span_tree: spanTreeOf(run, entries, kept) };
}

/** GET /v1/workflows/executions/{execution_id}/trace/events: the latest run's history as trace events. */
export async function traceEvents(caller: Pick<Caller, "workspace">, executionId: string, options: { merge: boolean; internal: boolean }) {
  const run = await latestRun(caller, executionId);
  const events = traceEventsOf(await entriesOf(run)).filter((event) => options.internal || !event.internal);
  return { ...traceHead(run), events: options.merge ? mergeSameId(events) : events };
}
