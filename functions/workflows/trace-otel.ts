import { ExecutionParams } from "../../shared/schemas/workflows.js";
import { TraceOtelOut } from "../../shared/schemas/workflow-traces.js";
import * as traces from "../../shared/services/workflows/traces.js";
import { route } from "../route.js";

/** The execution with its trace in OpenTelemetry form (`otel_trace_data` null, `data_source` "none" until spans are kept). */
export const handler = route({ params: ExecutionParams, response: TraceOtelOut }, async ({ params, caller }) => traces.traceOtel(caller, params.execution_id));
