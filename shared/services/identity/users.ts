import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { BadRequest, Conflict, NotFound } from "../../domain/errors.js";
import type { UserRecord, Workspace } from "../../domain/identity/records.js";
import { PERMISSIONS, permits } from "../../domain/identity/permissions.js";
import { organizationRole, workspaceRole, type OrganizationRoleName, type WorkspaceRoleName } from "../../domain/identity/roles.js";
import type { CreateUserBody, MyOrganizationsQuery, MyWorkspacesQuery, UserIdentityOut, UserListQuery, UserOut, WorkspaceMemberOut, WorkspaceMembersQuery } from "../../schemas/user.js";
import { identityStore } from "../../store/identity.js";
import { tenancyStore } from "../../store/tenancy.js";
import { recordAudit } from "../audit/record.js";
import { createApiKey, type NewKey } from "../tenancy/tenants.js";

/*
 * Users are people of an organization, created by the operator (`npm run users`) or an admin key
 * (`POST /v1/admin/users`, decision 73), with keys of their own.
 * A user key acts with the user's roles in the key's workspace plus the user's organization roles, and asks
 * who it is on `GET /v1/users/me` (and the organization and workspace views the SDK's `beta.users` reads).
 */

export interface NewUser {
  organization: string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  /** Any spelling of an organization role (`organization_admin`, `A`, its UUID); none makes a `member`. */
  organizationRoles?: string[];
}

export async function createUser(input: NewUser): Promise<UserRecord> {
  if (!(await tenancyStore.getOrganization(input.organization))) throw new NotFound("organization", input.organization);
  const email = input.email.trim();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new BadRequest(`'${input.email}' is not an email address`, "invalid_email", "email");
  const user: UserRecord = {
    id: randomUUID(),
    organization: input.organization,
    email,
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    organizationRoles: organizationRoles(input.organizationRoles ?? []),
    createdAt: new Date().toISOString(),
  };
  if (!(await identityStore.createUser(user))) throw new Conflict(`A user with the email address '${email}' exists already`, "email_taken");
  await recordAudit({
    organization: user.organization,
    operation: "user.create",
    targets: [{ type: "user", id: user.id }],
    after: { email: user.email, first_name: user.firstName, last_name: user.lastName, organization_roles: user.organizationRoles },
  });
  return user;
}

export const listUsers = (organization: string): Promise<UserRecord[]> => identityStore.listUsers(organization);

export const toUserOut = (user: UserRecord): UserOut => ({
  id: user.id,
  email: user.email,
  first_name: user.firstName,
  last_name: user.lastName,
  organization_roles: user.organizationRoles,
  created_at: user.createdAt,
});

/*
 * The admin routes' view of users (`/v1/admin/users`, docs/decisions/0073-users-and-api-keys-over-the-api.md):
 * the caller's organization only, as the users CLI sees it. The route rows let only admin keys and organization
 * admins through.
 */

/** One page of the organization's users, oldest first, with their total; `search` matches email and names. */
export async function listOrganizationUsers(caller: Caller, query: UserListQuery): Promise<{ items: UserRecord[]; total: number }> {
  // An organization's users are one query on its partition, and the answer needs their total: filtered here.
  const needle = query.search?.trim().toLowerCase();
  const matching = (await identityStore.listUsers(caller.organization))
    .filter((u) => !needle || [u.email, u.firstName ?? "", u.lastName ?? ""].some((field) => field.toLowerCase().includes(needle)))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const start = (query.page - 1) * query.page_size;
  return { items: matching.slice(start, start + query.page_size), total: matching.length };
}

/** A user of the caller's organization, as `npm run users -- create` makes one (400 for a bad address or role, 409 for a taken address). */
export const createOrganizationUser = (caller: Caller, body: CreateUserBody): Promise<UserRecord> =>
  createUser({ organization: caller.organization, email: body.email, firstName: body.first_name, lastName: body.last_name, organizationRoles: body.organization_roles });

/**
 * One page of a workspace's members (of the caller's organization; 404 otherwise, archived or not) with their roles
 * there and who they are, ordered by when they joined. Organization admins who never joined are not listed: they
 * act in every workspace without a membership.
 */
export async function listWorkspaceMembers(caller: Caller, workspaceId: string, query: WorkspaceMembersQuery): Promise<{ items: WorkspaceMemberOut[]; total: number }> {
  const workspace = await tenancyStore.getWorkspace(caller.organization, workspaceId, { consistent: true });
  if (!workspace) throw new NotFound("workspace", workspaceId);
  const members = (await identityStore.listMembers(workspace.id)).sort((a, b) => a.addedAt.localeCompare(b.addedAt) || a.user.localeCompare(b.user));
  const start = (query.page - 1) * query.page_size;
  const page = members.slice(start, start + query.page_size);
  const people = await Promise.all(page.map((m) => identityStore.getUser(caller.organization, m.user)));
  const items = page.map((member, i) => {
    const user = people[i];
    return {
      user_id: member.user,
      email: user?.email ?? null,
      first_name: user?.firstName ?? null,
      last_name: user?.lastName ?? null,
      roles: member.roles,
      organization_roles: user?.organizationRoles ?? [],
      added_at: member.addedAt,
      updated_at: member.updatedAt,
    };
  });
  return { items, total: members.length };
}

/** Makes the user a member of the workspace with these roles (any spelling), or sets the roles of a member. */
export async function addToWorkspace(input: { organization: string; workspace: string; user: string; roles: string[] }): Promise<"added" | "updated"> {
  await requireUser(input.organization, input.user);
  const roles = workspaceRoles(input.roles.length > 0 ? input.roles : ["user"]);
  const now = new Date().toISOString();
  const current = await identityStore.getMembership(input.workspace, input.user);
  const outcome = await identityStore.putMembership({ organization: input.organization, workspace: input.workspace, user: input.user, roles, addedAt: now, updatedAt: now }, { replace: true });
  if (outcome === "no-workspace") throw new NotFound("workspace", input.workspace);
  await recordAudit({
    organization: input.organization,
    workspace: input.workspace,
    operation: "membership.put",
    targets: [{ type: "workspace", id: input.workspace }, { type: "user", id: input.user }],
    before: { roles: { [input.user]: current?.roles ?? null } },
    after: { roles: { [input.user]: roles } },
  });
  return outcome === "added" ? "added" : "updated";
}

/**
 * A key for the user in a workspace it belongs to (organization admins belong to every workspace). Its roles
 * are read from the user's membership on each request, so the key carries none of its own.
 */
export async function createUserKey(input: { organization: string; workspace: string; user: string; name?: string }): Promise<NewKey> {
  const user = await requireUser(input.organization, input.user);
  const workspace = await tenancyStore.getWorkspace(input.organization, input.workspace, { consistent: true });
  if (!workspace || workspace.archivedAt) throw new NotFound("workspace", input.workspace);
  const member = await identityStore.getMembership(input.workspace, user.id);
  if (!member && !user.organizationRoles.includes("organization_admin")) {
    throw new BadRequest(`User ${user.id} is not a member of workspace ${input.workspace}: add it first`, "not_a_member", "workspace");
  }
  return createApiKey({
    organization: input.organization,
    workspace: input.workspace,
    name: input.name ?? user.email,
    admin: false,
    roles: [],
    principal: { id: user.id, type: "user" },
  });
}

/** Who the calling key is: its user (or service account), organization, workspace and the key itself. */
export async function identity(caller: Caller): Promise<UserIdentityOut> {
  const [user, organization, workspace, key] = await Promise.all([
    caller.principalType === "user" ? identityStore.getUser(caller.organization, caller.principal) : undefined,
    tenancyStore.getOrganization(caller.organization),
    tenancyStore.getWorkspace(caller.organization, caller.workspace),
    tenancyStore.getApiKey(caller.keyId),
  ]);
  return {
    id: caller.principal,
    email: user?.email ?? null,
    first_name: user?.firstName ?? null,
    last_name: user?.lastName ?? null,
    workspace: workspace ? { id: workspace.id, name: workspace.name } : null,
    organization: organization ? { id: organization.id, name: organization.name } : null,
    api_key: { id: caller.keyId, name: key?.name ?? null },
    type: caller.principalType,
    roles: caller.roles,
    permissions: permissionsOf(caller),
  };
}

/** What the caller's roles allow in its workspace, sorted: every permission for an admin key (the route chain's own check, `permits`). */
export const permissionsOf = (caller: Pick<Caller, "roles" | "admin">): string[] => PERMISSIONS.filter((permission) => permits(caller, permission)).sort();

/** A user belongs to one organization: the key's. */
export async function myOrganizations(caller: Caller, query: MyOrganizationsQuery): Promise<{ id: string; name: string }[]> {
  const organization = await tenancyStore.getOrganization(caller.organization);
  const all = organization ? [{ id: organization.id, name: organization.name }] : [];
  return all.slice(query.offset, query.offset + query.limit);
}

/**
 * The live workspaces the caller may use: a user's memberships (every workspace of the organization for an
 * organization admin); for a key without a user, its own workspace. Ordered by name, then id.
 */
export async function myWorkspaces(caller: Caller, query: MyWorkspacesQuery): Promise<{ id: string; name: string; organization_id: string }[]> {
  if (query.organization_id && query.organization_id !== caller.organization) return [];
  const user = caller.principalType === "user" ? await identityStore.getUser(caller.organization, caller.principal) : undefined;
  const all = await tenancyStore.listWorkspaces(caller.organization);
  let visible: Workspace[];
  if (!user) visible = all.filter((w) => w.id === caller.workspace);
  else if (user.organizationRoles.includes("organization_admin")) visible = all;
  else {
    const memberOf = new Set((await identityStore.listMembershipsOf(user.id)).map((m) => m.workspace));
    visible = all.filter((w) => memberOf.has(w.id));
  }
  return visible
    .filter((w) => !w.archivedAt)
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
    .slice(query.offset, query.offset + query.limit)
    .map((w) => ({ id: w.id, name: w.name, organization_id: w.organization }));
}

async function requireUser(organization: string, id: string): Promise<UserRecord> {
  const user = await identityStore.getUser(organization, id);
  if (!user) throw new NotFound("user", id);
  return user;
}

function organizationRoles(values: string[]): OrganizationRoleName[] {
  const names = values.map((value) => organizationRole(value) ?? invalidRole(value, "organization"));
  return names.length > 0 ? [...new Set(names)] : ["member"];
}

const workspaceRoles = (values: string[]): WorkspaceRoleName[] => [...new Set(values.map((value) => workspaceRole(value) ?? invalidRole(value, "workspace")))];

function invalidRole(value: string, scope: string): never {
  throw new BadRequest(`'${value}' is not a${scope === "organization" ? "n" : ""} ${scope} role`, "invalid_role", "roles");
}
