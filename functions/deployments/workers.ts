import * as deployments from "../../shared/services/workflows/deployments.js";
import { DeploymentNameParams, WorkerListOut, WorkerListQuery } from "../../shared/schemas/deployments.js";
import { route } from "../route.js";

export const handler = route({ params: DeploymentNameParams, query: WorkerListQuery, response: WorkerListOut }, async ({ params, query, caller }) =>
  deployments.listWorkers(caller, params.name, query),
);
