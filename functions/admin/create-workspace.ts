import * as workspaces from "../../shared/services/identity/workspaces.js";
import { CreateWorkspaceBody, WorkspaceEnrichedOut } from "../../shared/schemas/workspace.js";
import { route } from "../route.js";

// 200, not 201: the OpenAPI's only answer.
export const handler = route({ body: CreateWorkspaceBody, response: WorkspaceEnrichedOut }, async ({ body, caller }) => {
  const { workspace, rawRoles } = await workspaces.create(caller, body);
  return { ...workspaces.toWorkspaceOut(workspace), raw_roles: rawRoles, raw_role: rawRoles[0] };
});
