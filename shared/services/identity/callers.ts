import type { Caller } from "../../domain/caller.js";
import { identityStore } from "../../store/identity.js";
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
  if (!key) return undefined;
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
    ...(key.rateLimitPerMinute ? { rateLimitPerMinute: key.rateLimitPerMinute } : {}),
  };
}
