import { ExecutionParams } from "../../shared/schemas/workflows.js";
import { TraceSummaryOut } from "../../shared/schemas/workflow-traces.js";
import * as traces from "../../shared/services/workflows/traces.js";
import { route } from "../route.js";

/** The latest run as a span tree: the run, its activities and custom tasks, and the model calls kept in its trace. */
export const handler = route({ params: ExecutionParams, response: TraceSummaryOut }, async ({ params, caller }) => traces.traceSummary(caller, params.execution_id));
