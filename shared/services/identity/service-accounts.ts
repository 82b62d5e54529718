import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import type { ApiKeyRecord } from "../../domain/api-keys.js";
import { ApiError, Conflict, Forbidden, Unprocessable, type ValidationIssue } from "../../domain/errors.js";
import type { ServiceAccountRecord, Workspace } from "../../domain/identity/records.js";
import { roleUuid, WORKSPACE_ROLES, workspaceRole, type WorkspaceRoleName } from "../../domain/identity/roles.js";
import type {
  CreateServiceAccountBody,
  ServiceAccountKeyOut,
  ServiceAccountListQuery,
  ServiceAccountOut,
  ServiceAccountRolesOut,
  UpdateServiceAccountBody,
} from "../../schemas/service-account.js";
import { identityStore } from "../../store/identity.js";
import { tenancyStore } from "../../store/tenancy.js";
import { recordAudit } from "../audit/record.js";
import { createApiKey, keyLimitValues, keyValues, updateKeyLimits, type KeyLimitChanges, type KeyLimits } from "../tenancy/tenants.js";

export { keyLimitsFrom } from "../tenancy/tenants.js";

/*
 * Service accounts (beta): non-person principals of one workspace that hold API keys and workspace roles.
 * The route rows require `service-accounts:manage` of the key's own workspace roles; every operation then
 * names a target workspace (a `workspace_id`, or the account's), where the caller must also administer:
 * docs/decisions/0011-service-accounts.md.
 */

export const toServiceAccountOut = (account: ServiceAccountRecord): ServiceAccountOut => ({
  id: account.id,
  name: account.name,
  // No billing customer of its own exists here: the organization is the customer.
  customer_id: account.organization,
  organization_id: account.organization,
  workspace_id: account.workspace,
  description: account.description,
  created_at: account.createdAt,
  updated_at: account.updatedAt,
  deleted_at: account.deletedAt,
});

const toRolesOut = (roles: readonly WorkspaceRoleName[]): ServiceAccountRolesOut => ({ items: roles.map((name) => ({ role_id: roleUuid(name) })) });

const toKeyOut = (key: ApiKeyRecord): ServiceAccountKeyOut => ({
  id: key.keyId,
  object: "api_key",
  name: key.name,
  preview: key.preview,
  service_account_id: key.principal,
  workspace_id: key.workspace,
  created_at: key.createdAt,
  revoked_at: key.revokedAt,
  ...keyLimitValues(key),
});

/**
 * The workspace of the caller's organization the caller may manage service accounts in: its key's own
 * workspace (the row checked the key's roles there), any workspace for an organization admin, or one where
 * the caller's user is a member holding `workspace_admin`. Another organization's workspace is unknown (404).
 */
async function administered(caller: Caller, workspaceId: string): Promise<Workspace> {
  const workspace = await tenancyStore.getWorkspace(caller.organization, workspaceId, { consistent: true });
  if (!workspace) throw notFound("workspace", workspaceId);
  if (workspaceId === caller.workspace || caller.admin) return workspace;
  if (caller.principalType === "user") {
    const membership = await identityStore.getMembership(workspaceId, caller.principal);
    if (membership?.roles.includes("workspace_admin")) return workspace;
  }
  throw new Forbidden(`Managing the service accounts of workspace '${workspaceId}' needs workspace_admin there, or organization_admin`, "missing_permission");
}

/** The caller's organization's account, once the caller may manage its workspace. */
async function account(caller: Caller, id: string): Promise<ServiceAccountRecord> {
  const found = await identityStore.getServiceAccount(caller.organization, id);
  if (!found) throw notFound("service_account", id);
  await administered(caller, found.workspace);
  return found;
}

/** Deleted accounts stay readable (`deleted_at` set) and change no more. */
async function liveAccount(caller: Caller, id: string): Promise<ServiceAccountRecord> {
  const found = await account(caller, id);
  if (found.deletedAt) throw deleted(id);
  return found;
}

/** Accounts and workspaces are the organization's: another organization's answer as unknown ones. */
const notFound = (resource: "workspace" | "service_account" | "api_key", id: string) =>
  new ApiError(404, "not_found_error", `No ${resource.replace("_", " ")} with id '${id}' exists in this organization`, `${resource}_not_found`);

const deleted = (id: string) => new Conflict(`Service account '${id}' is deleted`, "service_account_deleted");

/**
 * One workspace's accounts with `workspace_id`; without it, the whole organization's for an organization
 * admin and the key's own workspace's for anyone else (the row let them through as workspace admins there).
 */
export async function list(caller: Caller, query: ServiceAccountListQuery): Promise<ServiceAccountOut[]> {
  let accounts: ServiceAccountRecord[];
  if (query.workspace_id) {
    await administered(caller, query.workspace_id);
    accounts = await identityStore.listServiceAccounts(caller.organization, query.workspace_id);
  } else {
    accounts = await identityStore.listServiceAccounts(caller.organization, caller.admin ? undefined : caller.workspace);
  }
  return accounts
    .filter((a) => query.include_deleted || !a.deletedAt)
    .slice(query.offset, query.offset + query.limit)
    .map(toServiceAccountOut);
}

export async function create(caller: Caller, body: CreateServiceAccountBody): Promise<ServiceAccountOut> {
  const workspace = await administered(caller, body.workspace_id);
  if (workspace.archivedAt) throw new Conflict(`Workspace '${workspace.id}' is archived`, "workspace_archived");
  const now = new Date().toISOString();
  const record: ServiceAccountRecord = {
    id: randomUUID(),
    organization: caller.organization,
    workspace: workspace.id,
    name: body.name,
    description: body.description ?? null,
    // No roles until they are assigned: a new account's keys may do nothing yet.
    roles: [],
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  await identityStore.putServiceAccount(record);
  await recordAudit({ organization: record.organization, workspace: record.workspace, operation: "service-account.create", targets: [{ type: "service_account", id: record.id }], after: accountValues(record) });
  return toServiceAccountOut(record);
}

export async function get(caller: Caller, id: string): Promise<ServiceAccountOut> {
  return toServiceAccountOut(await account(caller, id));
}

export async function update(caller: Caller, id: string, body: UpdateServiceAccountBody): Promise<ServiceAccountOut> {
  const current = await liveAccount(caller, id);
  if (body.description === undefined) return toServiceAccountOut(current);
  const updated = await identityStore.updateServiceAccount(caller.organization, id, { description: body.description, updatedAt: new Date().toISOString() });
  if (!updated) throw deleted(id);
  await recordAudit({
    organization: updated.organization,
    workspace: updated.workspace,
    operation: "service-account.update",
    targets: [{ type: "service_account", id }],
    before: { description: current.description },
    after: { description: updated.description },
  });
  return toServiceAccountOut(updated);
}

/** Soft delete: `deleted_at` is set, the account's keys are refused from then on and revoked. */
export async function remove(caller: Caller, id: string): Promise<void> {
  await liveAccount(caller, id);
  const now = new Date().toISOString();
  const updated = await identityStore.updateServiceAccount(caller.organization, id, { deletedAt: now, updatedAt: now });
  if (!updated) throw deleted(id);
  // The authorizer already refuses a deleted account's keys; revoking them says so in every key listing too.
  const revoked: string[] = [];
  for (const key of await keysOf(updated)) {
    if (key.revokedAt) continue;
    await tenancyStore.revokeApiKey(key.keyId, now);
    revoked.push(key.keyId);
  }
  await recordAudit({
    organization: updated.organization,
    workspace: updated.workspace,
    operation: "service-account.delete",
    targets: [{ type: "service_account", id }, ...revoked.map((keyId) => ({ type: "api_key", id: keyId }))],
    before: { deleted_at: null },
    after: { deleted_at: now, revoked_keys: revoked },
  });
}

/** What the audit log keeps of a service account. */
const accountValues = (a: ServiceAccountRecord) => ({ name: a.name, description: a.description, workspace_id: a.workspace, roles: a.roles });

export async function roles(caller: Caller, id: string): Promise<ServiceAccountRolesOut> {
  return toRolesOut((await account(caller, id)).roles);
}

/** The workspace roles the ids name, in any spelling (UUID, name, `A`/`M`), once each; an unknown one is a 422. */
export function workspaceRolesNamed(ids: readonly string[]): WorkspaceRoleName[] {
  const issues: ValidationIssue[] = [];
  const names = ids.map((id, i) => {
    const name = workspaceRole(id);
    if (!name) issues.push({ loc: ["body", "role_ids", i], msg: `Unknown role '${id}': GET /v1/service-accounts/assignable-roles lists the roles`, type: "value_error" });
    return name;
  });
  if (issues.length > 0) throw new Unprocessable(issues);
  return [...new Set(names as WorkspaceRoleName[])];
}

/** Replaces the roles; the account's keys act with them as soon as the authorizer's cache lets them. */
export async function setRoles(caller: Caller, id: string, roleIds: readonly string[]): Promise<ServiceAccountRolesOut> {
  const names = workspaceRolesNamed(roleIds);
  const current = await liveAccount(caller, id);
  const updated = await identityStore.updateServiceAccount(caller.organization, id, { roles: names, updatedAt: new Date().toISOString() });
  if (!updated) throw deleted(id);
  await recordAudit({
    organization: updated.organization,
    workspace: updated.workspace,
    operation: "service-account.set-roles",
    targets: [{ type: "service_account", id }],
    before: { roles: current.roles },
    after: { roles: updated.roles },
  });
  return toRolesOut(updated.roles);
}

export async function assignableRoles(caller: Caller, workspaceId: string) {
  await administered(caller, workspaceId);
  return { items: WORKSPACE_ROLES.map((role) => ({ uuid: role.uuid, name: role.name, description: role.description, is_custom_role: false })) };
}

async function keysOf(account: ServiceAccountRecord): Promise<ApiKeyRecord[]> {
  return (await tenancyStore.listApiKeys(account.organization))
    .filter((key) => key.principal === account.id && key.principalType === "service_account")
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
}

/**
 * A new key of a live account, in the account's workspace: shown once, only its hash is stored. Its roles
 * are the account's, read at each authorization. The keys CLI calls this too.
 */
export async function issueKey(target: ServiceAccountRecord, name: string, limits: KeyLimits = {}): Promise<ServiceAccountKeyOut & { key: string }> {
  if (target.deletedAt) throw deleted(target.id);
  const { key, record } = await createApiKey({
    organization: target.organization,
    workspace: target.workspace,
    name,
    admin: false,
    roles: [],
    ...limits,
    principal: { id: target.id, type: "service_account" },
  });
  return { ...toKeyOut(record), key };
}

export async function createKey(caller: Caller, id: string, name: string | undefined, limits: KeyLimits = {}): Promise<ServiceAccountKeyOut & { key: string }> {
  const target = await liveAccount(caller, id);
  return issueKey(target, name ?? `${target.name} key`, limits);
}

export async function listKeys(caller: Caller, id: string): Promise<ServiceAccountKeyOut[]> {
  return (await keysOf(await account(caller, id))).map(toKeyOut);
}

/** Changes the limits of one of the account's live keys (a revoked key is not found). */
export async function updateKey(caller: Caller, id: string, keyId: string, changes: KeyLimitChanges): Promise<ServiceAccountKeyOut> {
  const target = await account(caller, id);
  const key = (await keysOf(target)).find((k) => k.keyId === keyId && !k.revokedAt);
  if (!key) throw notFound("api_key", keyId);
  return toKeyOut(await updateKeyLimits(keyId, changes));
}

/** Revoking a revoked key again changes nothing. */
export async function revokeKey(caller: Caller, id: string, keyId: string): Promise<void> {
  const target = await account(caller, id);
  const key = (await keysOf(target)).find((k) => k.keyId === keyId);
  if (!key) throw notFound("api_key", keyId);
  if (key.revokedAt) return;
  const revoked = await tenancyStore.revokeApiKey(keyId, new Date().toISOString());
  await recordAudit({
    organization: key.organization,
    workspace: key.workspace,
    operation: "key.revoke",
    targets: [{ type: "api_key", id: keyId }, { type: "service_account", id: target.id }],
    before: { revoked_at: null },
    after: { revoked_at: revoked?.revokedAt ?? null },
  });
}
