import * as executions from "../../shared/services/workflows/executions.js";
import { ExecutionListOut, RunListQuery } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ query: RunListQuery, response: ExecutionListOut }, async ({ query, caller }) => {
  const page = await executions.listRuns(caller, query);
  return { executions: page.runs.map((run) => executions.toExecutionOut(run)), next_page_token: page.nextPageToken };
});
