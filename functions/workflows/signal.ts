import { Reply } from "../../shared/http/reply.js";
import { InvocationBody } from "../../shared/schemas/workflow-interaction.js";
import { ExecutionParams } from "../../shared/schemas/workflows.js";
import * as signals from "../../shared/services/workflows/signals.js";
import { route } from "../route.js";

/** 202 once the signal is in the execution's inbox; the program takes it when it waits for it. */
export const handler = route({ params: ExecutionParams, body: InvocationBody }, async ({ params, body, caller }) => {
  await signals.signal(caller, params.execution_id, body);
  return Reply.json(202, { message: "Signal accepted" });
});
