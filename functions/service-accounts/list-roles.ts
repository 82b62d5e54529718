import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { ServiceAccountParams, ServiceAccountRolesOut } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

export const handler = route({ params: ServiceAccountParams, response: ServiceAccountRolesOut }, ({ params, caller }) => serviceAccounts.roles(caller, params.service_account_id));
