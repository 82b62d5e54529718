import * as workflows from "../../shared/services/workflows/workflows.js";
import { WorkflowArchiveOut, WorkflowIdentifierParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

/** The SDK sends no body. */
export const handler = route({ params: WorkflowIdentifierParams, response: WorkflowArchiveOut }, async ({ params, caller }) => ({
  workflow: workflows.toWorkflowOut(await workflows.setArchived(caller, params.workflow_identifier, true)),
}));
