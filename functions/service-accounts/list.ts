import * as serviceAccounts from "../../shared/services/identity/service-accounts.js";
import { ServiceAccountListOut, ServiceAccountListQuery } from "../../shared/schemas/service-account.js";
import { route } from "../route.js";

export const handler = route({ query: ServiceAccountListQuery, response: ServiceAccountListOut }, async ({ query, caller }) => ({
  items: await serviceAccounts.list(caller, query),
}));
