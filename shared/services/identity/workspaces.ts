import { randomUUID } from "node:crypto";
import { forgetWorkspace } from "./workspace-cache.js";
import type { Caller } from "../../domain/caller.js";
import { ApiError, BadRequest, Conflict, NotFound } from "../../domain/errors.js";
import type { MembershipRecord, Workspace } from "../../domain/identity/records.js";
import { rawWorkspaceRole, roleUuid, workspaceRole, type WorkspaceRoleName } from "../../domain/identity/roles.js";
import type { CreateWorkspaceBody, MemberIn, MembersBody, RemoveMembersBody, UpdateWorkspaceBody, WorkspaceListQuery, WorkspaceOut } from "../../schemas/workspace.js";
import { identityStore } from "../../store/identity.js";
import { tenancyStore } from "../../store/tenancy.js";
import { changed } from "../../domain/audit.js";
import { recordAudit } from "../audit/record.js";

/*
 * The admin workspace routes (`/v1/admin/workspaces*`): the caller's organization's workspaces only (another
 * organization's id answers 404), archived rather than deleted, and their members with roles. The route rows
 * let only admin keys and organization admins through.
 */

/** A member given no role at all joins as a `user` (docs/decisions/0012-workspaces-and-users.md). */
const DEFAULT_MEMBER_ROLE: WorkspaceRoleName = "user";

export function toWorkspaceOut(workspace: Workspace): WorkspaceOut {
  const limit = workspace.spendLimit;
  return {
    uuid: workspace.id,
    name: workspace.name,
    description: workspace.description ?? null,
    icon: workspace.icon ?? null,
    members_count: workspace.membersCount ?? 0,
    groups_count: null,
    spend_limit: limit ? { value: limit.value, currency: limit.currency, no_monthly_limit: limit.noMonthlyLimit } : null,
    is_default: workspace.isDefault,
    is_archived: Boolean(workspace.archivedAt),
  };
}

/** One page of the organization's workspaces: the default first, then oldest first; archived ones only when asked. */
export async function list(caller: Caller, query: WorkspaceListQuery): Promise<{ items: Workspace[]; total: number }> {
  // An organization holds few workspaces and the answer needs their total: one query, filtered here.
  const needle = query.search?.trim().toLowerCase();
  const matching = (await tenancyStore.listWorkspaces(caller.organization))
    .filter((w) => query.is_archived || !w.archivedAt)
    .filter((w) => !needle || w.name.toLowerCase().includes(needle))
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const start = (query.page - 1) * query.page_size;
  return { items: matching.slice(start, start + query.page_size), total: matching.length };
}

/** The organization's workspace, archived or not; 404 for an id of another organization. */
export async function get(caller: Caller, id: string): Promise<Workspace> {
  const workspace = await tenancyStore.getWorkspace(caller.organization, id, { consistent: true });
  if (!workspace) throw workspaceNotFound(id);
  return workspace;
}

/**
 * A new workspace whose admin is `admin_user_id` (a user of the organization), with every other user of the
 * organization as a `user` when `add_all_org_members` is set.
 */
export async function create(caller: Caller, body: CreateWorkspaceBody): Promise<{ workspace: Workspace; rawRoles: string[] }> {
  const admin = await identityStore.getUser(caller.organization, body.admin_user_id);
  if (!admin) throw userNotFound(body.admin_user_id, "admin_user_id");
  const now = new Date().toISOString();
  const workspace: Workspace = {
    id: randomUUID(),
    organization: caller.organization,
    name: body.name,
    isDefault: false,
    createdAt: now,
    updatedAt: now,
    description: body.description,
    icon: body.icon,
    archivedAt: null,
    spendLimit: null,
    membersCount: 0,
  };
  await tenancyStore.putWorkspace(workspace);
  await identityStore.putMembership(membership(workspace, admin.id, ["workspace_admin"], now), { replace: true });
  const members: { user: string; roles: WorkspaceRoleName[] }[] = [{ user: admin.id, roles: ["workspace_admin"] }];
  if (body.add_all_org_members) {
    const others = (await identityStore.listUsers(caller.organization)).filter((u) => u.id !== admin.id);
    for (const user of others) {
      if ((await identityStore.putMembership(membership(workspace, user.id, [DEFAULT_MEMBER_ROLE], now), { replace: false })) === "added") members.push({ user: user.id, roles: [DEFAULT_MEMBER_ROLE] });
    }
  }
  await recordAudit({
    organization: caller.organization,
    workspace: workspace.id,
    operation: "workspace.create",
    targets: [{ type: "workspace", id: workspace.id }, ...members.map((m) => ({ type: "user", id: m.user }))],
    after: { ...workspaceValues(workspace), members },
  });
  return { workspace: await get(caller, workspace.id), rawRoles: await rawRolesOf(caller, workspace.id) };
}

/** Absent or null `name` keeps the name; a null `description` or `icon` clears it. */
export async function update(caller: Caller, id: string, body: UpdateWorkspaceBody): Promise<Workspace> {
  const before = await tenancyStore.getWorkspace(caller.organization, id, { consistent: true });
  if (!before) throw workspaceNotFound(id);
  const updated = await tenancyStore.updateWorkspace(caller.organization, id, {
    name: body.name ?? undefined,
    description: body.description,
    icon: body.icon,
    telemetryContentCapture: body.telemetry_content_capture,
    responseCacheTtlSeconds: body.response_cache_ttl_seconds,
    defaultGuardrails: body.default_guardrails,
    updatedAt: new Date().toISOString(),
  });
  if (!updated) throw workspaceNotFound(id);
  forgetWorkspace(caller.organization, id);
  await recordAudit({ organization: caller.organization, workspace: id, operation: "workspace.update", targets: [{ type: "workspace", id }], ...changed(workspaceValues(before), workspaceValues(updated)) });
  return updated;
}

/** What the audit log keeps of a workspace (docs/decisions/0044-audit-log.md). */
const workspaceValues = (w: Workspace) => ({
  name: w.name,
  description: w.description ?? null,
  icon: w.icon ?? null,
  archived_at: w.archivedAt ?? null,
  spend_limit: w.spendLimit ?? null,
  telemetry_content_capture: w.telemetryContentCapture ?? null,
  response_cache_ttl_seconds: w.responseCacheTtlSeconds ?? null,
  default_guardrails: w.defaultGuardrails ?? null,
});

/**
 * Archives the workspace: from now on its keys are refused (the authorizer reads `archivedAt` on every
 * uncached request), its records are kept, and the list shows it with `is_archived=true`. Archiving twice
 * keeps the first time. The default workspace stays: the organization's first keys live there.
 */
export async function archive(caller: Caller, id: string): Promise<void> {
  const workspace = await get(caller, id);
  if (workspace.isDefault) throw new BadRequest("The default workspace cannot be archived", "default_workspace", "workspace_uuid");
  if (workspace.archivedAt) return;
  const now = new Date().toISOString();
  await tenancyStore.updateWorkspace(caller.organization, id, { archivedAt: now, updatedAt: now });
  await recordAudit({ organization: caller.organization, workspace: id, operation: "workspace.archive", targets: [{ type: "workspace", id }], before: { archived_at: null }, after: { archived_at: now } });
}

/**
 * Adds members (add-users), or adds them and sets the roles of those already there (PATCH users). Every user
 * must be of the organization (404 otherwise, before anything changes); a member's roles are
 * `role_names` or `roles`, else `role_name` or `role`, else `user`.
 */
export async function putMembers(caller: Caller, id: string, body: MembersBody, options: { replace: boolean }): Promise<{ added: number; updated: number }> {
  const workspace = await get(caller, id);
  const wanted = new Map((body.members ?? []).map((m) => [m.user_uuid, rolesOf(m)] as const));
  for (const user of wanted.keys()) {
    if (!(await identityStore.getUser(caller.organization, user))) throw userNotFound(user, "members");
  }
  if (options.replace) await refuseLosingTheLastAdmin(workspace.id, wanted);
  let added = 0;
  let updated = 0;
  const now = new Date().toISOString();
  const before: Record<string, string[] | null> = {};
  const after: Record<string, string[]> = {};
  for (const [user, roles] of wanted) {
    const current = await identityStore.getMembership(workspace.id, user);
    if (current && (!options.replace || sameRoles(current.roles, roles))) continue;
    const outcome = await identityStore.putMembership(membership(workspace, user, roles, now), options);
    if (outcome === "added") added += 1;
    else if (outcome === "updated") updated += 1;
    else if (outcome === "no-workspace") throw workspaceNotFound(id);
    if (outcome === "added" || outcome === "updated") {
      before[user] = current?.roles ?? null;
      after[user] = roles;
    }
  }
  // A call that changed nothing is still recorded: an admin asked for these roles (the event says nothing changed).
  await recordAudit({
    organization: caller.organization,
    workspace: workspace.id,
    operation: "membership.put",
    targets: [{ type: "workspace", id: workspace.id }, ...[...wanted.keys()].map((user) => ({ type: "user", id: user }))],
    before: { roles: before },
    after: { roles: after },
  });
  return { added, updated };
}

/**
 * Removes members. Those that could not be removed are listed, not refused: users who are not members (or
 * not users at all), and a workspace's last admin.
 */
export async function removeMembers(caller: Caller, id: string, body: RemoveMembersBody): Promise<{ deleted: number; notDeleted: string[] }> {
  const workspace = await get(caller, id);
  let deleted = 0;
  const notDeleted: string[] = [];
  const removed: Record<string, string[]> = {};
  for (const user of new Set(body.members.map((m) => m.user_uuid))) {
    const current = await identityStore.getMembership(workspace.id, user);
    const outcome = await identityStore.removeMembership(caller.organization, workspace.id, user);
    if (outcome === "removed") {
      deleted += 1;
      removed[user] = current?.roles ?? [];
    } else notDeleted.push(user);
  }
  await recordAudit({
    organization: caller.organization,
    workspace: workspace.id,
    operation: "membership.remove",
    targets: [{ type: "workspace", id: workspace.id }, ...Object.keys(removed).map((user) => ({ type: "user", id: user }))],
    before: { roles: removed },
    after: { removed: Object.keys(removed), not_removed: notDeleted },
  });
  return { deleted, notDeleted };
}

/**
 * The caller's roles in the workspace as `raw_roles` spells them: a user's workspace roles (`A`, `M` or a
 * static UUID) and organization roles (static UUIDs); an admin key without a user behind it is `A`.
 */
export async function rawRolesOf(caller: Caller, workspace: string): Promise<string[]> {
  const user = caller.principalType === "user" ? await identityStore.getUser(caller.organization, caller.principal) : undefined;
  if (!user) return ["A"];
  const member = await identityStore.getMembership(workspace, user.id);
  const raw = [...(member?.roles ?? []).map(rawWorkspaceRole), ...user.organizationRoles.map(roleUuid)];
  return raw.length > 0 ? raw : ["A"];
}

function rolesOf(member: MemberIn): WorkspaceRoleName[] {
  const given = member.role_names ?? member.roles ?? (member.role_name ? [member.role_name] : member.role ? [member.role] : [DEFAULT_MEMBER_ROLE]);
  return [...new Set(given.map((value) => workspaceRole(value)!))];
}

const sameRoles = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((r) => b.includes(r));

/** A role change that would leave the workspace with no `workspace_admin` is refused as a whole. */
async function refuseLosingTheLastAdmin(workspace: string, wanted: Map<string, WorkspaceRoleName[]>): Promise<void> {
  const members = await identityStore.listMembers(workspace);
  const adminsBefore = members.filter((m) => m.roles.includes("workspace_admin"));
  if (adminsBefore.length === 0) return;
  const adminsAfter = new Set(adminsBefore.map((m) => m.user));
  for (const [user, roles] of wanted) {
    if (roles.includes("workspace_admin")) adminsAfter.add(user);
    else adminsAfter.delete(user);
  }
  if (adminsAfter.size === 0) throw new Conflict("This change would leave the workspace without a workspace_admin", "last_admin");
}

function membership(workspace: Workspace, user: string, roles: WorkspaceRoleName[], at: string): MembershipRecord {
  return { organization: workspace.organization, workspace: workspace.id, user, roles, addedAt: at, updatedAt: at };
}

const workspaceNotFound = (id: string) => new NotFound("workspace", id);

const userNotFound = (id: string, param: string) =>
  new ApiError(404, "not_found_error", `No user with id '${id}' exists in this organization`, "user_not_found", param);
