import { route } from "../route.js";
import { setSpendLimit } from "../../shared/services/usage/report.js";
import { SpendLimitIn, SpendLimitSetOut } from "../../shared/schemas/usage.js";

/** Admin keys only (the row): any workspace of the caller's organization, by default the key's own. */
export const handler = route({ body: SpendLimitIn, response: SpendLimitSetOut }, ({ body, caller }) =>
  setSpendLimit(caller.organization, body.workspace_id ?? caller.workspace, body),
);
