import { register } from "../../shared/services/workflows/registration.js";
import { RegisterOut, RegisterRequest } from "../../shared/schemas/workers.js";
import { route } from "../route.js";

/** A worker's registration of its deployment's workflows; workers repeat it about every 10 s (it is also their heartbeat). */
export const handler = route({ body: RegisterRequest, response: RegisterOut }, async ({ body, caller }) => register(caller, body));
