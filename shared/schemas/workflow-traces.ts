import * as z from "zod";
import { queryBoolean } from "./query.js";
import { ExecutionOut } from "./workflows.js";

/** OA:ExecutionTraceInfoResponse. */
export const TraceInfoOut = z.object({ otel_trace_id: z.string().nullable(), has_trace_data: z.boolean() });

/** OA:WorkflowExecutionTraceOTelResponse: the execution, and its trace as OA:TempoGetTraceResponse (null while no spans are kept). */
export const TraceOtelOut = ExecutionOut.omit({ search_keys: true }).extend({
  data_source: z.string(),
  otel_trace_id: z.string().nullable(),
  otel_trace_data: z.object({ batches: z.array(z.record(z.string(), z.unknown())) }).nullable(),
});

/** GET …/trace/events. */
export const TraceEventsQuery = z.object({ merge_same_id_events: queryBoolean(false), include_internal_events: queryBoolean(false) });

/** OA:WorkflowExecutionTraceSummaryAttributesValues. */
const TraceAttributes = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.null()]));

/** OA:WorkflowExecutionTraceEvent; `*_unix_nano` are microseconds (decision 0064). */
const TraceEventOut = z.object({
  type: z.literal("EVENT"),
  name: z.string(),
  id: z.string(),
  timestamp_unix_nano: z.number().int(),
  attributes: TraceAttributes,
  internal: z.boolean(),
});

/** OA:WorkflowExecutionProgressTraceEvent. */
const ProgressTraceEventOut = TraceEventOut.extend({
  type: z.literal("EVENT_PROGRESS"),
  status: z.enum(["RUNNING", "COMPLETED", "FAILED"]),
  start_time_unix_ms: z.number().int(),
  end_time_unix_ms: z.number().int().nullable(),
  error: z.string().nullable(),
});

interface TraceSpanOut {
  span_id: string;
  name: string;
  start_time_unix_nano: number;
  end_time_unix_nano: number | null;
  attributes: z.infer<typeof TraceAttributes>;
  events: z.infer<typeof TraceEventOut>[];
  children: TraceSpanOut[];
}

/** OA:WorkflowExecutionTraceSummarySpan. */
const TraceSpanOut: z.ZodType<TraceSpanOut> = z.lazy(() =>
  z.object({
    span_id: z.string(),
    name: z.string(),
    start_time_unix_nano: z.number().int(),
    end_time_unix_nano: z.number().int().nullable(),
    attributes: TraceAttributes,
    events: z.array(TraceEventOut),
    children: z.array(TraceSpanOut),
  }),
);

const TraceHeadOut = ExecutionOut.omit({ search_keys: true, registered_by: true });

/** OA:WorkflowExecutionTraceSummaryResponse. */
export const TraceSummaryOut = TraceHeadOut.extend({ span_tree: TraceSpanOut.nullable() });

/** OA:WorkflowExecutionTraceEventsResponse. */
export const TraceEventsOut = TraceHeadOut.extend({ events: z.array(z.discriminatedUnion("type", [TraceEventOut, ProgressTraceEventOut])) });
