import * as deployments from "../../shared/services/workflows/deployments.js";
import { DeploymentIdParams, DeploymentOut } from "../../shared/schemas/deployments.js";
import { route } from "../route.js";

/** Workspace admins only: clears the deployment's authorized principals; answers the deployment (is_hardened false). */
export const handler = route({ params: DeploymentIdParams, response: DeploymentOut }, async ({ params, caller }) => deployments.unharden(caller, params.deployment_id));
