import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { Reply } from "../../shared/http/reply.js";
import { CreateServiceAccountKeyBody, NewServiceAccountKeyOut, ServiceAccountParams } from "../../shared/schemas/service-account.js";
import type { KeyLimits } from "../../shared/services/tenancy/tenants.js";
import { route } from "../route.js";

// Extension. 201 with the secret: the only time it is shown.
export const handler = route({ params: ServiceAccountParams, body: CreateServiceAccountKeyBody, response: NewServiceAccountKeyOut }, async ({ params, body, caller }) =>
  Reply.json(201, NewServiceAccountKeyOut.parse(await serviceAccounts.createKey(caller, params.service_account_id, body.name, serviceAccounts.keyLimitsFrom(body) as KeyLimits)), {
    "cache-control": "no-store",
  }),
);
