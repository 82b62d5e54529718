import type { Caller } from "../../domain/caller.js";
import { CALL_LIMITS, expired, type ApiKeyRecord, type CallLimitField } from "../../domain/api-keys.js";
import { identityStore } from "../../store/identity.js";
import { tenancyStore } from "../../store/tenancy.js";
import { findKey } from "../tenancy/tenants.js";

/** What a key without a registered user or service account behind it may do: what every key could before roles. */
export const LEGACY_KEY_ROLES = ["workspace_contributor"];

/**
 * The caller an API key stands for, or undefined when it must be refused: an unknown or revoked key, a key
 * of an archived (or unknown) workspace, of a deleted service account, or of a user who is no longer a
 * member of the key's workspace (organization admins need no membership). Roles are resolved now, so a
 * change of roles takes effect as soon as the authorizer's cache lets it.
 */
export async function resolveCaller(secret: string): Promise<Caller | undefined> {
  const key = await findKey(secret);
  if (!key || expired(key)) return undefined;
  return callerOf(key, key);
}

/**
 * The rights a principal holds now in a workspace, as a key of theirs would resolve (decision 0042: a
 * workflow program's connector steps run with its registrant's rights at run time). Undefined when they
 * lost them: the workspace archived, the user no longer a member (and not an organization admin), the
 * service account deleted, or, for a key with no user or service account behind it, the key revoked. The
 * key's admin flag counts only while that key is live; the principal's roles do not depend on the key.
 */
export async function resolvePrincipal(
  who: { organization: string; workspace: string; principal: string; principalType: "user" | "service_account"; keyId: string },
  options: { liveKey?: boolean } = {},
): Promise<Caller | undefined> {
  const stored = await tenancyStore.getApiKey(who.keyId);
  const key = stored && !stored.revokedAt && !expired(stored) && stored.principal === who.principal && stored.workspace === who.workspace ? stored : undefined;
  // A credential derived from the key (a client secret) dies with it, whatever the principal may still do.
  if (options.liveKey && !key) return undefined;
  return callerOf({ ...who, roles: key?.roles ?? [], admin: key?.admin ?? false, ...(key ? {} : { revoked: true }) }, key);
}

/** The key's limits the calls it makes are held to (docs/routing.md, "Per-key limits"): only those it has. */
const limitsOf = (key: ApiKeyRecord): Pick<Caller, CallLimitField> => Object.fromEntries(CALL_LIMITS.filter((field) => key[field] !== undefined).map((field) => [field, key[field]]));

type KeyLike = Pick<ApiKeyRecord, "organization" | "workspace" | "principal" | "principalType" | "roles" | "admin" | "keyId"> & { revoked?: boolean };

async function callerOf(key: KeyLike, live: ApiKeyRecord | undefined): Promise<Caller | undefined> {
  const view = await identityStore.principalView(key.organization, key.workspace, key.principal, key.principalType);
  if (!view.workspace || view.workspace.archivedAt) return undefined;
  let roles: string[];
  if (view.user) {
    const organizationAdmin = view.user.organizationRoles.includes("organization_admin");
    if (!view.membership && !organizationAdmin) return undefined;
    roles = [...new Set([...(view.membership?.roles ?? []), ...view.user.organizationRoles])];
  } else if (view.serviceAccount) {
    if (view.serviceAccount.deletedAt) return undefined;
    roles = [...view.serviceAccount.roles];
  } else {
    // A key with no user or service account behind it is its own principal: gone with the key.
    if (key.revoked) return undefined;
    roles = key.roles.length > 0 || key.admin ? key.roles : LEGACY_KEY_ROLES;
  }
  return {
    organization: key.organization,
    workspace: key.workspace,
    principal: key.principal,
    principalType: key.principalType,
    roles,
    admin: key.admin || roles.includes("organization_admin"),
    keyId: key.keyId,
    ...(live ? limitsOf(live) : {}),
  };
}
