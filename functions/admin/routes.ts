import { area } from "../route-row.js";

/** Workspace administration: admin keys and organization admins only (the chain answers others 403). */
export const adminRoutes = area({ auth: "admin", permissions: { read: "workspaces:admin", write: "workspaces:admin" } }, [
  { method: "GET", path: "/v1/admin/workspaces", handler: "admin/list-workspaces", grants: { tables: { tenancy: "read" } } },
  { method: "POST", path: "/v1/admin/workspaces", handler: "admin/create-workspace", grants: { tables: { tenancy: "readwrite" } }, audit: "workspace.create" },
  { method: "DELETE", path: "/v1/admin/workspaces/{workspace_uuid}", handler: "admin/archive-workspace", doc: { status: 204 }, grants: { tables: { tenancy: "readwrite" } }, audit: "workspace.archive" },
  { method: "PATCH", path: "/v1/admin/workspaces/{workspace_uuid}", handler: "admin/update-workspace", grants: { tables: { tenancy: "readwrite" } }, audit: "workspace.update" },
  { method: "POST", path: "/v1/admin/workspaces/{workspace_uuid}/add-users", handler: "admin/add-users", grants: { tables: { tenancy: "readwrite" } }, audit: "membership.put" },
  { method: "PATCH", path: "/v1/admin/workspaces/{workspace_uuid}/users", handler: "admin/put-users", grants: { tables: { tenancy: "readwrite" } }, audit: "membership.put" },
  { method: "DELETE", path: "/v1/admin/workspaces/{workspace_uuid}/remove-users", handler: "admin/remove-users", grants: { tables: { tenancy: "readwrite" } }, audit: "membership.remove" },
  // Extension: the organization's audit log (docs/decisions/0044-audit-log.md); read-only, no route changes or deletes an event.
  { method: "GET", path: "/v1/admin/audit-events", handler: "admin/list-audit-events", grants: { tables: { audit: "read" } }, extension: true },
  // Extensions: users and API keys over the API, what the users and keys CLIs do (docs/decisions/0073-users-and-api-keys-over-the-api.md).
  { method: "GET", path: "/v1/admin/users", handler: "admin/list-users", grants: { tables: { tenancy: "read" } }, extension: true },
  { method: "POST", path: "/v1/admin/users", handler: "admin/create-user", doc: { status: 201 }, grants: { tables: { tenancy: "readwrite" } }, extension: true, audit: "user.create" },
  { method: "GET", path: "/v1/admin/workspaces/{workspace_uuid}/users", handler: "admin/list-members", grants: { tables: { tenancy: "read" } }, extension: true },
  { method: "GET", path: "/v1/admin/api-keys", handler: "admin/list-api-keys", grants: { tables: { tenancy: "read" } }, extension: true },
  { method: "POST", path: "/v1/admin/api-keys", handler: "admin/create-api-key", doc: { status: 201 }, grants: { tables: { tenancy: "readwrite" } }, extension: true, audit: "key.create" },
  { method: "DELETE", path: "/v1/admin/api-keys/{key_id}", handler: "admin/revoke-api-key", doc: { status: 204 }, grants: { tables: { tenancy: "readwrite" } }, extension: true, audit: "key.revoke" },
]);
