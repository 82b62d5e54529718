import * as deployments from "../../shared/services/workflows/deployments.js";
import { CreateDeploymentRequest, ManagedDeploymentOut } from "../../shared/schemas/deployments.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";

/** 202 with a ManagedDeploymentResponse (decision 0017). */
export const handler = route({ body: CreateDeploymentRequest, returns: ManagedDeploymentOut }, async ({ body, caller }) => Reply.json(202, ManagedDeploymentOut.parse(await deployments.create(caller, body))));
