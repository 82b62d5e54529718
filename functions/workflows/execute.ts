import * as executions from "../../shared/services/workflows/executions.js";
import { ExecuteOut, WorkflowExecutionRequest, WorkflowIdentifierParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ params: WorkflowIdentifierParams, body: WorkflowExecutionRequest, response: ExecuteOut }, async ({ params, body, caller }) =>
  executions.answerOf(await executions.execute(caller, params.workflow_identifier, body)),
);
