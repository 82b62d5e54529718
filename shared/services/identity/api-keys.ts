import type { Caller } from "../../domain/caller.js";
import { expired, type ApiKeyRecord } from "../../domain/api-keys.js";
import { ApiError } from "../../domain/errors.js";
import type { ApiKeyListQuery, ApiKeyOut, CreateApiKeyBody } from "../../schemas/api-key.js";
import { tenancyStore } from "../../store/tenancy.js";
import { keyLimitValues, revokeKey as revokeAnyKey } from "../tenancy/tenants.js";
import { createUserKey } from "./users.js";

/*
 * The organization's API keys over the admin API (`/v1/admin/api-keys`, docs/decisions/0073-users-and-api-keys-over-the-api.md):
 * what `npm run keys -- list|revoke` and `npm run users -- key` do, for the caller's organization only. The route
 * rows let only admin keys and organization admins through. A key is never shown with its hash, and its secret
 * only once, when it is made.
 */

/** A key as the API shows it: the service-account key routes' fields, with its principal named generally. */
export function toApiKeyOut(key: ApiKeyRecord, now = Date.now()): ApiKeyOut {
  return {
    id: key.keyId,
    object: "api_key",
    name: key.name,
    preview: key.preview,
    type: key.principalType,
    principal_id: key.principal,
    user_id: key.principalType === "user" ? key.principal : null,
    workspace_id: key.workspace,
    admin: key.admin,
    roles: key.roles,
    created_at: key.createdAt,
    revoked_at: key.revokedAt,
    state: key.revokedAt ? "revoked" : expired(key, now) ? "expired" : "active",
    ...keyLimitValues(key),
  };
}

/** A key of another organization is unknown here, as one that does not exist. */
const keyNotFound = (id: string) => new ApiError(404, "not_found_error", `No api key with id '${id}' exists in this organization`, "api_key_not_found");

/** One page of the organization's keys, oldest first, with their total; revoked ones only with `include_revoked`. */
export async function list(caller: Caller, query: ApiKeyListQuery): Promise<{ items: ApiKeyOut[]; total: number }> {
  // One query on the organization's key index (the keys CLI's), filtered here: the answer needs the total.
  const matching = (await tenancyStore.listApiKeys(caller.organization))
    .filter((k) => k.organization === caller.organization)
    .filter((k) => !query.workspace_id || k.workspace === query.workspace_id)
    .filter((k) => !query.user_id || k.principal === query.user_id)
    .filter((k) => query.include_revoked || !k.revokedAt)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
  const start = (query.page - 1) * query.page_size;
  return { items: matching.slice(start, start + query.page_size).map((k) => toApiKeyOut(k)), total: matching.length };
}

/**
 * A key for a user of the organization in a workspace of it, as `npm run users -- key` makes one: 404 for a user or
 * workspace (or archived workspace) unknown to the organization, 400 `not_a_member` when the user is not a member of
 * the workspace and not an organization admin. The key carries no roles: it acts with the user's, read at each call.
 */
export async function createForUser(caller: Caller, body: CreateApiKeyBody): Promise<ApiKeyOut & { key: string }> {
  const { key, record } = await createUserKey({ organization: caller.organization, workspace: body.workspace_id, user: body.user_id, name: body.name });
  return { ...toApiKeyOut(record), key };
}

/**
 * Revokes a key of the organization, of any principal (a user's, a service account's, an admin key): refused from
 * the next uncached call on. Revoking a revoked key again changes nothing (and records nothing).
 */
export async function revoke(caller: Caller, keyId: string): Promise<void> {
  const key = await tenancyStore.getApiKey(keyId);
  if (!key || key.organization !== caller.organization) throw keyNotFound(keyId);
  if (key.revokedAt) return;
  await revokeAnyKey(keyId);
}
