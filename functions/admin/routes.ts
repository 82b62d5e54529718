import { area } from "../route-row.js";

/** Workspace administration: admin keys and organization admins only (the chain answers others 403). */
export const adminRoutes = area({ auth: "admin", permissions: { read: "workspaces:admin", write: "workspaces:admin" } }, [
  { method: "GET", path: "/v1/admin/workspaces", handler: "admin/list-workspaces", grants: { tables: { tenancy: "read" } } },
  { method: "POST", path: "/v1/admin/workspaces", handler: "admin/create-workspace", grants: { tables: { tenancy: "readwrite" } } },
  { method: "DELETE", path: "/v1/admin/workspaces/{workspace_uuid}", handler: "admin/archive-workspace", doc: { status: 204 }, grants: { tables: { tenancy: "readwrite" } } },
  { method: "PATCH", path: "/v1/admin/workspaces/{workspace_uuid}", handler: "admin/update-workspace", grants: { tables: { tenancy: "readwrite" } } },
  { method: "POST", path: "/v1/admin/workspaces/{workspace_uuid}/add-users", handler: "admin/add-users", grants: { tables: { tenancy: "readwrite" } } },
  { method: "PATCH", path: "/v1/admin/workspaces/{workspace_uuid}/users", handler: "admin/put-users", grants: { tables: { tenancy: "readwrite" } } },
  { method: "DELETE", path: "/v1/admin/workspaces/{workspace_uuid}/remove-users", handler: "admin/remove-users", grants: { tables: { tenancy: "readwrite" } } },
]);
