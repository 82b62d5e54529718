import * as executions from "../../shared/services/workflows/executions.js";
import { BatchExecutionBody, BatchExecutionOut } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ body: BatchExecutionBody, response: BatchExecutionOut }, async ({ body, caller }) => ({
  results: await executions.batch(caller, body.execution_ids, executions.cancel),
}));
