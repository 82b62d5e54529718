import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { ServiceAccountParams, ServiceAccountRolesOut, SetServiceAccountRolesBody } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

export const handler = route({ params: ServiceAccountParams, body: SetServiceAccountRolesBody, response: ServiceAccountRolesOut }, ({ params, body, caller }) =>
  serviceAccounts.setRoles(caller, params.service_account_id, body.role_ids),
);
