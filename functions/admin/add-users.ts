import * as workspaces from "../../shared/services/identity/workspaces.js";
import { AddedMembersOut, MembersBody, WorkspaceParams } from "../../shared/schemas/workspace.js";
import { route } from "../route.js";

export const handler = route({ params: WorkspaceParams, body: MembersBody, response: AddedMembersOut }, async ({ params, body, caller }) => {
  const { added } = await workspaces.putMembers(caller, params.workspace_uuid, body, { replace: false });
  return { added_members_count: added };
});
