import { area } from "../route-row.js";

// Extension routes (ours, not the spec's): usage reports and workspace spend limits (docs/spend.md).
export const usageRoutes = area({ permissions: { read: "usage:read", write: "usage:read" } }, [
  { method: "GET", path: "/v1/usage", handler: "usage/report", grants: { tables: { usage: "read", tenancy: "read" } }, extension: true },
  { method: "GET", path: "/v1/usage/spend", handler: "usage/spend", grants: { tables: { usage: "read", tenancy: "read" } }, extension: true },
  { method: "PUT", path: "/v1/usage/spend-limit", handler: "usage/set-spend-limit", auth: "admin", permission: "workspaces:admin", grants: { tables: { tenancy: "readwrite" } }, extension: true, audit: "spend-limit.set" },
]);
