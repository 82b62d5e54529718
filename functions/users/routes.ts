import { area } from "../route-row.js";

/** Who a key is: extensions the official SDK's `beta.users` calls; every key may ask. */
export const userRoutes = area({ permissions: { read: "identity:read", write: "identity:read" } }, [
  { method: "GET", path: "/v1/users/me", handler: "users/me", grants: { tables: { tenancy: "read" } }, extension: true, keyHeader: true },
  { method: "GET", path: "/v1/users/me/organizations", handler: "users/my-organizations", grants: { tables: { tenancy: "read" } }, extension: true, keyHeader: true },
  { method: "GET", path: "/v1/users/me/workspaces", handler: "users/my-workspaces", grants: { tables: { tenancy: "read" } }, extension: true, keyHeader: true },
]);
