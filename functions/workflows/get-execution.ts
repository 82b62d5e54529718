import * as executions from "../../shared/services/workflows/executions.js";
import { ExecutionOut, ExecutionParams, GetExecutionQuery } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

/** The execution as its latest run has it. `include_search_keys` gives an empty map: no search attributes are kept. */
export const handler = route({ params: ExecutionParams, query: GetExecutionQuery, response: ExecutionOut }, async ({ params, query, caller }) =>
  executions.toExecutionOut(await executions.latestRun(caller, params.execution_id), { searchKeys: query.include_search_keys }),
);
