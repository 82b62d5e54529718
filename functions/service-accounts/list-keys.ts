import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { ServiceAccountKeyListOut, ServiceAccountParams } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

// Extension: previews only; the keys themselves are never stored.
export const handler = route({ params: ServiceAccountParams, response: ServiceAccountKeyListOut }, async ({ params, caller }) => ({
  items: await serviceAccounts.listKeys(caller, params.service_account_id),
}));
