import * as deployments from "../../shared/services/workflows/deployments.js";
import { DeploymentNameParams, PrincipalsOut, PrincipalsRequest } from "../../shared/schemas/deployments.js";
import { route } from "../route.js";

/** Extension (workspace admins): `{add?, remove?}` key ids or service account ids; answers the resulting set. */
export const handler = route({ params: DeploymentNameParams, body: PrincipalsRequest, response: PrincipalsOut }, async ({ params, body, caller }) =>
  deployments.changePrincipals(caller, params.name, body),
);
