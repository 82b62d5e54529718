import { area } from "../route-row.js";

/**
 * The API's own reference (docs/api-reference.md): the OpenAPI document and the page that renders it. Both
 * public (no key: a client needs the reference before it has one) and ours, not the spec's.
 */
export const docsRoutes = area({ auth: "public" }, [
  { method: "GET", path: "/openapi.json", handler: "docs/openapi", grants: {}, extension: true, doc: { summary: "The OpenAPI 3.1 document of this API" } },
  { method: "GET", path: "/docs", handler: "docs/page", grants: {}, extension: true, doc: { summary: "The API reference page (and its assets)", media: "text/html" } },
]);
