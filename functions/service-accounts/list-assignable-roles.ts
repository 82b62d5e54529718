import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { AssignableRolesOut, AssignableRolesQuery } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

export const handler = route({ query: AssignableRolesQuery, response: AssignableRolesOut }, ({ query, caller }) => serviceAccounts.assignableRoles(caller, query.workspace_id));
