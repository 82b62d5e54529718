import * as z from "zod";
import { Uuid } from "./common.js";
import { queryInt } from "./query.js";

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
});
export type UserIdentityOut = z.output<typeof UserIdentityOut>;

export const MyOrganizationsOut = z.object({ organizations: z.array(Named) });
export const MyWorkspacesOut = z.object({ workspaces: z.array(Named.extend({ organization_id: z.string() })) });
