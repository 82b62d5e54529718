import * as apiKeys from "../../shared/services/identity/api-keys.js";
import { Reply } from "../../shared/http/reply.js";
import { ApiKeyParams } from "../../shared/schemas/api-key.js";
import { route } from "../route.js";

// Extension (docs/decisions/0073-users-and-api-keys-over-the-api.md): revokes a key of the organization; 204, also when it was revoked already.
export const handler = route({ params: ApiKeyParams }, async ({ params, caller }) => {
  await apiKeys.revoke(caller, params.key_id);
  return Reply.empty(204);
});
