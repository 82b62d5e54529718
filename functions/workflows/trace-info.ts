import { ExecutionParams } from "../../shared/schemas/workflows.js";
import { TraceInfoOut } from "../../shared/schemas/workflow-traces.js";
import * as traces from "../../shared/services/workflows/traces.js";
import { route } from "../route.js";

/** The execution's OpenTelemetry trace id, and whether spans of it are kept (none until the observability span writer lands). */
export const handler = route({ params: ExecutionParams, response: TraceInfoOut }, async ({ params, caller }) => traces.traceInfo(caller, params.execution_id));
