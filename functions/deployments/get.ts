import * as deployments from "../../shared/services/workflows/deployments.js";
import { DeploymentDetailOut, DeploymentGetQuery, DeploymentNameParams } from "../../shared/schemas/deployments.js";
import { route } from "../route.js";

export const handler = route({ params: DeploymentNameParams, query: DeploymentGetQuery, response: DeploymentDetailOut }, async ({ params, query, caller }) =>
  deployments.get(caller, params.name, query.workflow_name),
);
