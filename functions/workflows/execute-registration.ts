import * as executions from "../../shared/services/workflows/executions.js";
import { ExecuteOut, WorkflowExecutionRequest, WorkflowRegistrationParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";
import { withTraceparent } from "./traceparent.js";

/** Deprecated in the OpenAPI, still served: runs exactly that registration's program. */
export const handler = route({ params: WorkflowRegistrationParams, body: WorkflowExecutionRequest, response: ExecuteOut }, async ({ params, body, caller, event }) =>
  executions.answerOf(await executions.executeRegistration(caller, params.workflow_registration_id, withTraceparent(body, event))),
);
