import * as users from "../../shared/services/identity/users.js";
import { WorkspaceMemberListOut, WorkspaceMembersParams, WorkspaceMembersQuery } from "../../shared/schemas/user.js";
import { route } from "../route.js";

// Extension (docs/decisions/0073-users-and-api-keys-over-the-api.md): a workspace's members with their roles there.
export const handler = route({ params: WorkspaceMembersParams, query: WorkspaceMembersQuery, response: WorkspaceMemberListOut }, async ({ params, query, caller }) => {
  const { items, total } = await users.listWorkspaceMembers(caller, params.workspace_uuid, query);
  return { object: "list", data: items, total, page: query.page, page_size: query.page_size };
});
