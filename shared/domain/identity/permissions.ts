import type { Caller } from "../caller.js";
import type { RoleName } from "./roles.js";

/**
 * What a route may need, per route family. Every route-table row names one (`permission`); the handler
 * chain checks the caller's roles against this table and answers 403 in the row's family when none grants it.
 */
export const PERMISSIONS = [
  "files:read",
  "files:write",
  "models:read",
  "models:write",
  "inference:invoke",
  "batch:read",
  "batch:write",
  "agents:read",
  "agents:write",
  "registry:read",
  "registry:write",
  "service-accounts:manage",
  "usage:read",
  "workspaces:admin",
  "workflows:read",
  "workflows:execute",
  "workflows:write",
  "observability:read",
  "observability:write",
  "connectors:read",
  "connectors:write",
  // The spec's ShareConnectorToWorkspace (workspace permission) and ShareConnectorToOrg (organization permission).
  "connectors:share-workspace",
  "connectors:share-organization",
  "retrieval:read",
  "retrieval:write",
  "audio:read",
  "audio:write",
  "identity:read",
  "libraries:read",
  "libraries:write",
  // Sharing a library beyond its owner (docs/libraries.md): with users and workspaces, and with the whole organization.
  "libraries:share",
  "libraries:share-organization",
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const reads: Permission[] = ["files:read", "models:read", "batch:read", "agents:read", "registry:read", "workflows:read", "observability:read", "connectors:read", "retrieval:read", "audio:read", "libraries:read"];
/** What using the platform takes: reading, calling models, files, batch jobs, running workflows, voices and transcription. */
const user: Permission[] = [...reads, "inference:invoke", "files:write", "batch:write", "workflows:execute", "observability:write", "audio:write"];
/** A user who also builds: agents, prompts and skills, models, workflows, connectors, retrieval configurations. */
const contributor: Permission[] = [...user, "agents:write", "registry:write", "models:write", "workflows:write", "connectors:write", "retrieval:write", "libraries:write"];
/** Sharing a connector with the whole workspace (ShareConnectorToWorkspace) is the workspace admin's; with the organization (ShareConnectorToOrg), the organization admin's. */
const workspaceAdmin: Permission[] = [...contributor, "service-accounts:manage", "usage:read", "connectors:share-workspace", "libraries:share"];

/** Role → what it allows in the workspace it is held in (organization roles: in every workspace of the organization). */
const ROLES_OWN_PERMISSIONS: Record<RoleName, readonly Permission[]> = {
  billing: ["usage:read"],
  user,
  contributor,
  dev: user,
  dev_contributor: contributor,
  mistral_code_user: ["inference:invoke", "models:read"],
  cloud_user: user,
  workspace_contributor: contributor,
  workspace_admin: workspaceAdmin,
  observability_viewer: ["observability:read"],
  workflow_executor: ["workflows:read", "workflows:execute"],
  member: [],
  billing_manager: ["usage:read"],
  organization_admin: [...PERMISSIONS],
};

/** What every role allows: a key may always ask who it is (`GET /v1/users/me`). */
export const UNIVERSAL_PERMISSIONS: readonly Permission[] = ["identity:read"];

export const ROLE_PERMISSIONS: Record<RoleName, readonly Permission[]> = Object.fromEntries(
  Object.entries(ROLES_OWN_PERMISSIONS).map(([role, permissions]) => [role, [...new Set([...permissions, ...UNIVERSAL_PERMISSIONS])]]),
) as unknown as Record<RoleName, readonly Permission[]>;

/** Whether any of the caller's roles grants the permission. An admin key stands for the organization's admin. */
export function permits(caller: Pick<Caller, "roles" | "admin">, permission: Permission): boolean {
  if (caller.admin) return true;
  return caller.roles.some((role) => (ROLE_PERMISSIONS as Record<string, readonly Permission[] | undefined>)[role]?.includes(permission));
}
