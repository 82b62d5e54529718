import * as workspaces from "../../shared/services/identity/workspaces.js";
import { UpdateWorkspaceBody, WorkspaceOut, WorkspaceParams } from "../../shared/schemas/workspace.js";
import { route } from "../route.js";

export const handler = route({ params: WorkspaceParams, body: UpdateWorkspaceBody, response: WorkspaceOut }, async ({ params, body, caller }) =>
  workspaces.toWorkspaceOut(await workspaces.update(caller, params.workspace_uuid, body)),
);
