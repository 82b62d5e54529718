import * as users from "../../shared/services/identity/users.js";
import { MyWorkspacesOut, MyWorkspacesQuery } from "../../shared/schemas/user.js";
import { route } from "../route.js";

export const handler = route({ query: MyWorkspacesQuery, response: MyWorkspacesOut }, async ({ query, caller }) => ({
  workspaces: await users.myWorkspaces(caller, query),
}));
