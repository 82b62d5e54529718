import * as z from "zod";
import { Uuid } from "./common.js";
import { queryInt } from "./query.js";
import { WorkspaceParams } from "./workspace.js";

/*
 * Who a key is: `GET /v1/users/me` and its organization and workspace views, as the official SDK's
 * `beta.users` parses them (UserIdentity, ListOrganizationsResponse, ListWorkspacesResponse; snake_case on the wire).
 */

const offsetLimit = {
  offset: queryInt().min(0).default(0),
  limit: queryInt().min(1).max(100).default(100),
};

export const MyOrganizationsQuery = z.object(offsetLimit);
export type MyOrganizationsQuery = z.output<typeof MyOrganizationsQuery>;

export const MyWorkspacesQuery = z.object({ ...offsetLimit, organization_id: Uuid.optional() });
export type MyWorkspacesQuery = z.output<typeof MyWorkspacesQuery>;

const Named = z.object({ id: z.string(), name: z.string() });

export const UserIdentityOut = z.object({
  id: z.string(),
  email: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  workspace: Named.nullable(),
  organization: Named.nullable(),
  api_key: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
  /** Extension: whether a user or a service account holds the key. */
  type: z.enum(["user", "service_account"]),
  /** Extension: the roles the key acts with in its workspace. */
  roles: z.array(z.string()),
  /** Extension: what those roles allow in the key's workspace (shared/domain/identity/permissions.ts), sorted; an admin key holds every one. */
  permissions: z.array(z.string()),
});
export type UserIdentityOut = z.output<typeof UserIdentityOut>;

export const MyOrganizationsOut = z.object({ organizations: z.array(Named) });
export const MyWorkspacesOut = z.object({ workspaces: z.array(Named.extend({ organization_id: z.string() })) });

/*
 * Extension: the organization's users and a workspace's members over the admin API (`/v1/admin/users`,
 * `GET /v1/admin/workspaces/{workspace_uuid}/users`), what `npm run users -- create|list` do
 * (docs/decisions/0073-users-and-api-keys-over-the-api.md). Paged like `GET /v1/admin/workspaces`.
 */

const pageQuery = {
  page: queryInt().min(1).default(1),
  page_size: queryInt().min(1).max(1000).default(25),
};

export const UserListQuery = z.object({
  ...pageQuery,
  /** Part of an email address, first or last name, in any case. */
  search: z.string().optional(),
});
export type UserListQuery = z.output<typeof UserListQuery>;

export const UserOut = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  organization_roles: z.array(z.string()),
  created_at: z.string(),
});
export type UserOut = z.output<typeof UserOut>;

export const UserListOut = z.object({
  object: z.literal("list"),
  data: z.array(UserOut),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

/** Unknown fields are refused: the route has no OpenAPI of its own to follow, and a typo would otherwise be dropped. */
export const CreateUserBody = z.strictObject({
  /** Checked by the service (400 invalid_email), as the users CLI checks it; unique across the deployment (409 email_taken). */
  email: z.string().min(1).max(320),
  first_name: z.string().max(255).nullish(),
  last_name: z.string().max(255).nullish(),
  /** Any spelling of an organization role (name, `A`/`M`/`B`, static UUID); none makes a `member`. */
  organization_roles: z.array(z.string().min(1)).max(10).optional(),
});
export type CreateUserBody = z.output<typeof CreateUserBody>;

export const WorkspaceMembersParams = WorkspaceParams;
export const WorkspaceMembersQuery = z.object(pageQuery);
export type WorkspaceMembersQuery = z.output<typeof WorkspaceMembersQuery>;

/** A member with its roles in the workspace; the person's fields are null when its user record is gone. */
export const WorkspaceMemberOut = z.object({
  user_id: z.string(),
  email: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  roles: z.array(z.string()),
  organization_roles: z.array(z.string()),
  added_at: z.string(),
  updated_at: z.string(),
});
export type WorkspaceMemberOut = z.output<typeof WorkspaceMemberOut>;

export const WorkspaceMemberListOut = z.object({
  object: z.literal("list"),
  data: z.array(WorkspaceMemberOut),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
