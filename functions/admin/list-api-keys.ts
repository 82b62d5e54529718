import * as apiKeys from "../../shared/services/identity/api-keys.js";
import { ApiKeyListOut, ApiKeyListQuery } from "../../shared/schemas/api-key.js";
import { route } from "../route.js";

// Extension (docs/decisions/0073-users-and-api-keys-over-the-api.md): the organization's keys; never a secret or a hash.
export const handler = route({ query: ApiKeyListQuery, response: ApiKeyListOut }, async ({ query, caller }) => {
  const { items, total } = await apiKeys.list(caller, query);
  return { object: "list", data: items, total, page: query.page, page_size: query.page_size };
});
