import * as deployments from "../../shared/services/workflows/deployments.js";
import { DeploymentNameParams, ManagedDeploymentOut, UpdateDeploymentRequest } from "../../shared/schemas/deployments.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";

export const handler = route({ params: DeploymentNameParams, body: UpdateDeploymentRequest, returns: ManagedDeploymentOut }, async ({ params, body, caller }) =>
  Reply.json(202, ManagedDeploymentOut.parse(await deployments.update(caller, params.name, body))),
);
