import { DeploymentParams } from "../../shared/schemas/retrieval.js";
import { unregisterDeployment } from "../../shared/services/retrieval/index.js";
import { route } from "../route.js";

// 200 with a JSON `null` body (our spec; the SDK accepts any JSON).
export const handler = route({ params: DeploymentParams }, ({ params, caller }) => unregisterDeployment(caller, params.deployment_id));
