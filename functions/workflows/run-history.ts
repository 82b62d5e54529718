import { HistoryQuery } from "../../shared/schemas/workflow-interaction.js";
import { RunParams } from "../../shared/schemas/workflows.js";
import * as history from "../../shared/services/workflows/history.js";
import { route } from "../route.js";

export const handler = route({ params: RunParams, query: HistoryQuery }, async ({ params, query, caller }) => history.runHistory(caller, params.run_id, query.decode_payloads));
