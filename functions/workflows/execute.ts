import * as executions from "../../shared/services/workflows/executions.js";
import { ExecuteOut, WorkflowExecutionRequest, WorkflowIdentifierParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";
import { withTraceparent } from "./traceparent.js";

export const handler = route({ params: WorkflowIdentifierParams, body: WorkflowExecutionRequest, response: ExecuteOut }, async ({ params, body, caller, event }) =>
  executions.answerOf(await executions.execute(caller, params.workflow_identifier, withTraceparent(body, event))),
);
