import { Reply } from "../../shared/http/reply.js";
import { ResetBody } from "../../shared/schemas/workflow-interaction.js";
import { ExecutionParams } from "../../shared/schemas/workflows.js";
import * as resets from "../../shared/services/workflows/reset.js";
import { route } from "../route.js";

export const handler = route({ params: ExecutionParams, body: ResetBody }, async ({ params, body, caller }) => {
  await resets.reset(caller, params.execution_id, body);
  return Reply.empty(204);
});
