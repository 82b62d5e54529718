import { area } from "../route-row.js";

/**
 * The web console (docs/console.md): an HTML entry and its hashed assets, public like the reference page (they
 * carry no data; the console signs in with an API key kept in the browser and calls the documented routes).
 */
export const consoleRoutes = area({ auth: "public" }, [
  { method: "GET", path: "/console", handler: "console/page", grants: {}, extension: true, doc: { summary: "The web console's page", media: "text/html" } },
  { method: "GET", path: "/console/{asset}", handler: "console/asset", grants: {}, extension: true, doc: { summary: "One of the web console's scripts or stylesheets", media: "text/javascript" } },
]);
