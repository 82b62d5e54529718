import * as workflows from "../../shared/services/workflows/workflows.js";
import { WorkflowBulkArchiveRequest, WorkflowBulkUnarchiveOut } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

/** Each id answered on its own: unarchived (already unarchived included) or errored, with why. */
export const handler = route({ body: WorkflowBulkArchiveRequest, response: WorkflowBulkUnarchiveOut }, async ({ body, caller }) => {
  const { done, errored } = await workflows.bulkSetArchived(caller, body.workflow_ids, false);
  return { unarchived: done.map(workflows.toWorkflowOut), errored: errored.map(workflows.toBulkErrorOut) };
});
