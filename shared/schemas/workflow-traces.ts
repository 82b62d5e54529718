import * as z from "zod";
import { ExecutionOut } from "./workflows.js";

/** OA:ExecutionTraceInfoResponse. */
export const TraceInfoOut = z.object({ otel_trace_id: z.string().nullable(), has_trace_data: z.boolean() });

/** OA:WorkflowExecutionTraceOTelResponse: the execution, and its trace as OA:TempoGetTraceResponse (null while no spans are kept). */
export const TraceOtelOut = ExecutionOut.omit({ search_keys: true }).extend({
  data_source: z.string(),
  otel_trace_id: z.string().nullable(),
  otel_trace_data: z.object({ batches: z.array(z.record(z.string(), z.unknown())) }).nullable(),
});
