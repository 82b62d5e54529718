import { HistoryQuery } from "../../shared/schemas/workflow-interaction.js";
import { ExecutionParams } from "../../shared/schemas/workflows.js";
import * as history from "../../shared/services/workflows/history.js";
import { route } from "../route.js";

export const handler = route({ params: ExecutionParams, query: HistoryQuery }, async ({ params, query, caller }) => history.executionHistory(caller, params.execution_id, query.decode_payloads));
