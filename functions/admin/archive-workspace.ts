import { Reply } from "../../shared/http/reply.js";
import * as workspaces from "../../shared/services/identity/workspaces.js";
import { WorkspaceParams } from "../../shared/schemas/workspace.js";
import { route } from "../route.js";

// DELETE archives: 204 with no body, as the OpenAPI answers.
export const handler = route({ params: WorkspaceParams }, async ({ params, caller }) => {
  await workspaces.archive(caller, params.workspace_uuid);
  return Reply.empty(204);
});
