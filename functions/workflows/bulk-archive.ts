import * as workflows from "../../shared/services/workflows/workflows.js";
import { WorkflowBulkArchiveOut, WorkflowBulkArchiveRequest } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

/** Each id answered on its own: archived (already archived included) or errored, with why. */
export const handler = route({ body: WorkflowBulkArchiveRequest, response: WorkflowBulkArchiveOut }, async ({ body, caller }) => {
  const { done, errored } = await workflows.bulkSetArchived(caller, body.workflow_ids, true);
  return { archived: done.map(workflows.toWorkflowOut), errored: errored.map(workflows.toBulkErrorOut) };
});
