import { DeploymentSummariesOut } from "../../shared/schemas/retrieval.js";
import { listDeployments } from "../../shared/services/retrieval/index.js";
import { route } from "../route.js";

export const handler = route({ response: DeploymentSummariesOut }, ({ caller }) => listDeployments(caller));
