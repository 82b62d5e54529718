import * as users from "../../shared/services/identity/users.js";
import { UserListOut, UserListQuery } from "../../shared/schemas/user.js";
import { route } from "../route.js";

// Extension (docs/decisions/0073-users-and-api-keys-over-the-api.md): the organization's users, paged like the workspaces.
export const handler = route({ query: UserListQuery, response: UserListOut }, async ({ query, caller }) => {
  const { items, total } = await users.listOrganizationUsers(caller, query);
  return { object: "list", data: items.map(users.toUserOut), total, page: query.page, page_size: query.page_size };
});
