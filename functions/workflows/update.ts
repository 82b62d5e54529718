import * as workflows from "../../shared/services/workflows/workflows.js";
import { WorkflowIdentifierParams, WorkflowUpdateOut, WorkflowUpdateRequest } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ params: WorkflowIdentifierParams, body: WorkflowUpdateRequest, response: WorkflowUpdateOut }, async ({ params, body, caller }) => ({
  workflow: workflows.toWorkflowOut(await workflows.update(caller, params.workflow_identifier, body)),
}));
