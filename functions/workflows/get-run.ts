import * as executions from "../../shared/services/workflows/executions.js";
import { ExecutionOut, RunParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ params: RunParams, response: ExecutionOut }, async ({ params, caller }) => executions.toExecutionOut(await executions.getRun(caller, params.run_id)));
