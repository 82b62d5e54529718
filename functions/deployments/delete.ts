import * as deployments from "../../shared/services/workflows/deployments.js";
import { DeleteQuery, DeploymentNameParams, ManagedDeploymentOut } from "../../shared/schemas/deployments.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";

/** Refused with 409 while executions of the deployment run, unless `force=true`. */
export const handler = route({ params: DeploymentNameParams, query: DeleteQuery, returns: ManagedDeploymentOut }, async ({ params, query, caller }) =>
  Reply.json(202, ManagedDeploymentOut.parse(await deployments.remove(caller, params.name, query.force))),
);
