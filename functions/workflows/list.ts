import * as workflows from "../../shared/services/workflows/workflows.js";
import { WorkflowListOut, WorkflowListQuery } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ query: WorkflowListQuery, response: WorkflowListOut }, async ({ query, caller }) => {
  const page = await workflows.list(caller, query);
  return { workflows: page.workflows.map(workflows.toWorkflowBasicOut), next_cursor: page.nextCursor };
});
