import * as workspaces from "../../shared/services/identity/workspaces.js";
import { WorkspaceListOut, WorkspaceListQuery } from "../../shared/schemas/workspace.js";
import { route } from "../route.js";

export const handler = route({ query: WorkspaceListQuery, response: WorkspaceListOut }, async ({ query, caller }) => {
  const { items, total } = await workspaces.list(caller, query);
  return { object: "list", items: items.map(workspaces.toWorkspaceOut), total, page: query.page, page_size: query.page_size };
});
