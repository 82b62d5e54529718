import { routes } from "../functions/routes.js";
import { cliArgs } from "./cli-target.js";

cliArgs("Usage: npm run routes\n\nPrints every route the API serves, one METHOD PATH a line (extension routes included).", {}, false);

for (const row of routes) console.log(`${row.method} ${row.path}`);
