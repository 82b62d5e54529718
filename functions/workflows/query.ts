import { InvocationBody, QueryOut } from "../../shared/schemas/workflow-interaction.js";
import { ExecutionParams } from "../../shared/schemas/workflows.js";
import * as queries from "../../shared/services/workflows/queries.js";
import { route } from "../route.js";

export const handler = route({ params: ExecutionParams, body: InvocationBody, response: QueryOut }, async ({ params, body, caller }) => queries.query(caller, params.execution_id, body));
