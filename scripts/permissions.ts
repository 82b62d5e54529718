import { writeFileSync } from "node:fs";
import { routes } from "../functions/routes.js";
import { cliArgs } from "./cli-target.js";
import { permissionPage } from "./permission-page.js";
import { routeKey } from "../shared/http/policy.js";

/** Writes docs/permissions.md from the role and permission tables and the route table. */
cliArgs("Usage: npm run permissions\n\nRegenerates docs/permissions.md from the roles, the permissions and the route table.", {}, false);
writeFileSync(new URL("../docs/permissions.md", import.meta.url), permissionPage(routes.map((row) => ({ key: routeKey(row), permission: row.permission, auth: row.auth }))));
