import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { Reply } from "../../shared/http/reply.js";
import { ServiceAccountParams } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

// 204 with no body: the SDK expects exactly that.
export const handler = route({ params: ServiceAccountParams }, async ({ params, caller }) => {
  await serviceAccounts.remove(caller, params.service_account_id);
  return Reply.empty(204);
});
