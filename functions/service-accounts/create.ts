import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { Reply } from "../../shared/http/reply.js";
import { CreateServiceAccountBody, ServiceAccountOut } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

// 201: the SDK rejects a 200 here.
export const handler = route({ body: CreateServiceAccountBody, response: ServiceAccountOut }, async ({ body, caller }) =>
  Reply.json(201, ServiceAccountOut.parse(await serviceAccounts.create(caller, body))),
);
