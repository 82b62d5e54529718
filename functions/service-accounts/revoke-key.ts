import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { Reply } from "../../shared/http/reply.js";
import { ServiceAccountKeyParams } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

// Extension: revokes one of the account's keys; 204, also when it was revoked already.
export const handler = route({ params: ServiceAccountKeyParams }, async ({ params, caller }) => {
  await serviceAccounts.revokeKey(caller, params.service_account_id, params.key_id);
  return Reply.empty(204);
});
