import { newTraceId, parseTraceparent } from "../observability/genai.js";

/**
 * OpenTelemetry trace ids of executions (docs/workflows.md, "Traces"): the caller's W3C `traceparent`
 * unless `force_new_trace`, else a new one.
 */

/** The trace id of a `traceparent`, or undefined when it is not a valid one. */
export const traceIdOfParent = (traceparent: string | null | undefined): string | undefined => parseTraceparent(traceparent)?.traceId;

/** The trace id an execution starts with: the caller's trace unless a new one is asked for (or the traceparent is unusable). */
export function traceIdOf(request: { traceparent?: string | null; force_new_trace?: boolean | null }): string {
  return (!request.force_new_trace && traceIdOfParent(request.traceparent)) || newTraceId();
}
