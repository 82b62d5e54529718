import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { ServiceAccountKeyOut, ServiceAccountKeyParams, UpdateServiceAccountKeyBody } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

// Extension: changes one live key's limits; null clears a limit, a field left out keeps it.
export const handler = route({ params: ServiceAccountKeyParams, body: UpdateServiceAccountKeyBody, response: ServiceAccountKeyOut }, ({ params, body, caller }) =>
  serviceAccounts.updateKey(caller, params.service_account_id, params.key_id, serviceAccounts.keyLimitsFrom(body)),
);
