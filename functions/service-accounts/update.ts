import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { ServiceAccountOut, ServiceAccountParams, UpdateServiceAccountBody } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

export const handler = route({ params: ServiceAccountParams, body: UpdateServiceAccountBody, response: ServiceAccountOut }, ({ params, body, caller }) =>
  serviceAccounts.update(caller, params.service_account_id, body),
);
