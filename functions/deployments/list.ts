import * as deployments from "../../shared/services/workflows/deployments.js";
import { DeploymentListOut, DeploymentListQuery } from "../../shared/schemas/deployments.js";
import { route } from "../route.js";

export const handler = route({ query: DeploymentListQuery, response: DeploymentListOut }, async ({ query, caller }) => deployments.list(caller, query));
