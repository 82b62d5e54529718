import * as users from "../../shared/services/identity/users.js";
import { MyOrganizationsOut, MyOrganizationsQuery } from "../../shared/schemas/user.js";
import { route } from "../route.js";

export const handler = route({ query: MyOrganizationsQuery, response: MyOrganizationsOut }, async ({ query, caller }) => ({
  organizations: await users.myOrganizations(caller, query),
}));
