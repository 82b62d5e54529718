import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { ServiceAccountOut, ServiceAccountParams } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

export const handler = route({ params: ServiceAccountParams, response: ServiceAccountOut }, ({ params, caller }) => serviceAccounts.get(caller, params.service_account_id));
