import { ExecutionParams } from "../../shared/schemas/workflows.js";
import { ExecutionLogQuery, LogSearchOut } from "../../shared/schemas/workflow-streams.js";
import * as logs from "../../shared/services/workflows/logs.js";
import { route } from "../route.js";

/** The execution's log lines (its workers' and the engine's), paged by an opaque cursor that keeps the range and order. */
export const handler = route({ params: ExecutionParams, query: ExecutionLogQuery, response: LogSearchOut }, async ({ params, query, caller }) => logs.executionLogs(caller, params.execution_id, query));
