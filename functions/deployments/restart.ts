import * as deployments from "../../shared/services/workflows/deployments.js";
import { DeploymentNameParams, ManagedDeploymentOut } from "../../shared/schemas/deployments.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";

export const handler = route({ params: DeploymentNameParams, returns: ManagedDeploymentOut }, async ({ params, caller }) => Reply.json(202, ManagedDeploymentOut.parse(await deployments.restart(caller, params.name))));
