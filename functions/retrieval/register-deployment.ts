import { RegisterDeploymentBody, RegisterDeploymentOut } from "../../shared/schemas/retrieval.js";
import { registerDeployment } from "../../shared/services/retrieval/index.js";
import { route } from "../route.js";

export const handler = route({ body: RegisterDeploymentBody, response: RegisterDeploymentOut }, ({ body, caller }) => registerDeployment(caller, body));
