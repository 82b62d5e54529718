import { randomUUID } from "node:crypto";
import type { RunningApi } from "../../infra/local/server.js";
import type { UserRecord } from "../../shared/domain/identity/records.js";
import type { ApiReply, Query } from "./files-client.js";
import { filesClient } from "./files-client.js";
import { within } from "./inference-client.js";
import type { TestTenant } from "./tenant.js";

/**
 * A user of the organization in the embedded DynamoDB (the organization record is made if missing), as
 * `npm run users -- create` makes one.
 */
export async function aUserOf(organization: string, options: { email?: string; firstName?: string; lastName?: string; organizationRoles?: string[] } = {}): Promise<UserRecord> {
  const { tenancyStore } = await import("../../shared/store/tenancy.js");
  const users = await import("../../shared/services/identity/users.js");
  await tenancyStore.putOrganization({ id: organization, name: "Test organization", createdAt: new Date().toISOString() });
  return users.createUser({
    organization,
    email: options.email ?? `${randomUUID()}@example.com`,
    firstName: options.firstName ?? "Ada",
    lastName: options.lastName ?? "Lovelace",
    organizationRoles: options.organizationRoles,
  });
}

/** Makes the user a member of the workspace with these roles and gives it a key there. */
export async function aUserKey(user: UserRecord, workspace: string, roles: string[] = ["user"]): Promise<string> {
  const users = await import("../../shared/services/identity/users.js");
  if (roles.length > 0) await users.addToWorkspace({ organization: user.organization, workspace, user: user.id, roles });
  return (await users.createUserKey({ organization: user.organization, workspace, user: user.id })).key;
}

/** The admin workspace routes and the users routes, over plain HTTP, as one key sees them. */
export function identityClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const call = (method: string, path: string, options: { query?: Query; json?: unknown; key?: string | null; headers?: Record<string, string> } = {}): Promise<ApiReply> =>
    within(request(method, path, options), `${method} ${path}`);
  const at = (id: string) => `/v1/admin/workspaces/${encodeURIComponent(id)}`;
  return {
    call,
    listWorkspaces: (query: Query = {}) => call("GET", "/v1/admin/workspaces", { query }),
    createWorkspace: (body: Record<string, unknown>) => call("POST", "/v1/admin/workspaces", { json: body }),
    updateWorkspace: (id: string, body: Record<string, unknown>) => call("PATCH", at(id), { json: body }),
    archiveWorkspace: (id: string) => call("DELETE", at(id)),
    addUsers: (id: string, members: Record<string, unknown>[]) => call("POST", `${at(id)}/add-users`, { json: { members } }),
    putUsers: (id: string, members: Record<string, unknown>[]) => call("PATCH", `${at(id)}/users`, { json: { members } }),
    removeUsers: (id: string, users: string[]) => call("DELETE", `${at(id)}/remove-users`, { json: { members: users.map((user_uuid) => ({ user_uuid })) } }),
    me: (key?: string) => call("GET", "/v1/users/me", { key }),
    myOrganizations: (query: Query = {}, key?: string) => call("GET", "/v1/users/me/organizations", { query, key }),
    myWorkspaces: (query: Query = {}, key?: string) => call("GET", "/v1/users/me/workspaces", { query, key }),
  };
}
