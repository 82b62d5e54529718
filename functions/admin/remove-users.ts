import * as workspaces from "../../shared/services/identity/workspaces.js";
import { RemovedMembersOut, RemoveMembersBody, WorkspaceParams } from "../../shared/schemas/workspace.js";
import { route } from "../route.js";

export const handler = route({ params: WorkspaceParams, body: RemoveMembersBody, response: RemovedMembersOut }, async ({ params, body, caller }) => {
  const { deleted, notDeleted } = await workspaces.removeMembers(caller, params.workspace_uuid, body);
  return { deleted_members_count: deleted, not_deleted_members: notDeleted };
});
