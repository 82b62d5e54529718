import { routes } from "../functions/routes.js";

for (const row of routes) console.log(`${row.method} ${row.path}`);
