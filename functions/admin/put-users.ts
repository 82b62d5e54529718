import * as workspaces from "../../shared/services/identity/workspaces.js";
import { AddedOrUpdatedMembersOut, MembersBody, WorkspaceParams } from "../../shared/schemas/workspace.js";
import { route } from "../route.js";

export const handler = route({ params: WorkspaceParams, body: MembersBody, response: AddedOrUpdatedMembersOut }, async ({ params, body, caller }) => {
  const { added, updated } = await workspaces.putMembers(caller, params.workspace_uuid, body, { replace: true });
  return { added_members_count: added, updated_members_count: updated };
});
