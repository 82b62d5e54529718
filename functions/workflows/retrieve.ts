import * as workflows from "../../shared/services/workflows/workflows.js";
import { WorkflowGetOut, WorkflowIdentifierParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ params: WorkflowIdentifierParams, response: WorkflowGetOut }, async ({ params, caller }) => {
  const { workflow, active } = await workflows.get(caller, params.workflow_identifier);
  return { workflow: { ...workflows.toWorkflowOut(workflow), active } };
});
