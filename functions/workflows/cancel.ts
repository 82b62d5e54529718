import { Reply } from "../../shared/http/reply.js";
import * as executions from "../../shared/services/workflows/executions.js";
import { ExecutionParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ params: ExecutionParams }, async ({ params, caller }) => {
  await executions.cancel(caller, params.execution_id);
  return Reply.empty(204);
});
