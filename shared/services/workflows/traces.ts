import type { Caller } from "../../domain/caller.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { latestRun, toExecutionOut } from "./executions.js";

/**
 * Traces of executions (reference/workflows.md rows 28–29; docs/workflows.md, "Traces"). Every execution
 * gets an OpenTelemetry trace id at execute time: the `traceparent`'s (W3C trace context) unless
 * `force_new_trace`, else a new one; its next runs and its children keep it. The spans are read in one
 * place, `executionTrace`: until the observability issue writes spans there are none, so
 * `has_trace_data` is false and `otel_trace_data` null.
 */

/** OA:TempoGetTraceResponse: OpenTelemetry resource spans, grouped in batches. */
export interface OtelTraceData {
  batches: Record<string, unknown>[];
}

/**
 * THE seam for span data: where an execution's spans (its model calls and activities, written by the
 * observability span writer) are read. No span writer exists yet, so there is no data source.
 */
export async function executionTrace(_run: RunRecord): Promise<{ dataSource: string; data: OtelTraceData | null }> {
  return { dataSource: "none", data: null };
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
