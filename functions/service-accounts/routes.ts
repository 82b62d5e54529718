import { area } from "../route-row.js";

const read = { tables: { tenancy: "read" } } as const;
const write = { tables: { tenancy: "readwrite" } } as const;

/**
 * Service accounts (beta). Every row needs `service-accounts:manage` in the key's workspace; the service
 * checks the target workspace besides (docs/service-accounts.md). The key rows are ours: the spec gives
 * service accounts no way to hold keys.
 */
export const serviceAccountRoutes = area({ permissions: { read: "service-accounts:manage", write: "service-accounts:manage" } }, [
  { method: "GET", path: "/v1/service-accounts", handler: "service-accounts/list", grants: read },
  { method: "POST", path: "/v1/service-accounts", handler: "service-accounts/create", doc: { status: 201 }, grants: write, audit: "service-account.create" },
  { method: "GET", path: "/v1/service-accounts/assignable-roles", handler: "service-accounts/list-assignable-roles", grants: read },
  { method: "GET", path: "/v1/service-accounts/{service_account_id}", handler: "service-accounts/retrieve", grants: read },
  { method: "DELETE", path: "/v1/service-accounts/{service_account_id}", handler: "service-accounts/delete", doc: { status: 204 }, grants: write, audit: "service-account.delete" },
  { method: "PATCH", path: "/v1/service-accounts/{service_account_id}", handler: "service-accounts/update", grants: write, audit: "service-account.update" },
  { method: "GET", path: "/v1/service-accounts/{service_account_id}/roles", handler: "service-accounts/list-roles", grants: read },
  { method: "PUT", path: "/v1/service-accounts/{service_account_id}/roles", handler: "service-accounts/set-roles", grants: write, audit: "service-account.set-roles" },
  { method: "POST", path: "/v1/service-accounts/{service_account_id}/keys", handler: "service-accounts/create-key", doc: { status: 201 }, grants: write, extension: true, audit: "key.create" },
  { method: "GET", path: "/v1/service-accounts/{service_account_id}/keys", handler: "service-accounts/list-keys", grants: read, extension: true },
  { method: "PATCH", path: "/v1/service-accounts/{service_account_id}/keys/{key_id}", handler: "service-accounts/update-key", grants: { tables: { tenancy: "readwrite", usage: "readwrite" } }, extension: true, audit: "key.update" },
  { method: "DELETE", path: "/v1/service-accounts/{service_account_id}/keys/{key_id}", handler: "service-accounts/revoke-key", doc: { status: 204 }, grants: write, extension: true, audit: "key.revoke" },
]);
