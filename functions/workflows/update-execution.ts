import { InvocationBody, UpdateOut } from "../../shared/schemas/workflow-interaction.js";
import { ExecutionParams } from "../../shared/schemas/workflows.js";
import * as updates from "../../shared/services/workflows/updates.js";
import { route } from "../route.js";

/** Synchronous: answered when the program completes the update, 504 WF_1103 at the deadline (25 s). */
export const handler = route({ params: ExecutionParams, body: InvocationBody, response: UpdateOut }, async ({ params, body, caller }) => updates.update(caller, params.execution_id, body));
