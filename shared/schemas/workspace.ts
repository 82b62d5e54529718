import * as z from "zod";
import { Uuid } from "./common.js";
import { GuardrailConfig } from "./guardrails.js";
import { queryBoolean, queryInt } from "./query.js";

/*
 * The admin workspace routes (`/v1/admin/workspaces*`), as the OpenAPI's AdminWorkspaceIn, UpdateWorkspaceIN,
 * WorkspaceMemberIN, RemoveWorkspaceMembersIN, WorkspaceOUT, WorkspaceEnrichedOUT and WorkspacesOut give them.
 * None of its bodies forbids unknown fields, so unknown fields are dropped, not refused.
 */

/** Role names a member may be given in a workspace (the OpenAPI's `role_names` enum). */
export const WORKSPACE_ROLE_NAME_VALUES = [
  "billing",
  "user",
  "contributor",
  "dev",
  "dev_contributor",
  "mistral_code_user",
  "cloud_user",
  "workspace_contributor",
  "workspace_admin",
  "observability_viewer",
  "workflow_executor",
] as const;

/** The static UUIDs of the workspace roles (StaticWorkspaceRoles), in the order of the names above. */
export const WORKSPACE_ROLE_UUID_VALUES = [
  "d7ea77c5-9260-41d0-ab26-52b5add3ee56",
  "48436751-ee56-44bd-8a2d-712233977821",
  "375cd0db-3bbe-4b79-80f3-954ccf04f3d1",
  "578584f1-4319-4c88-9948-38a5184483b6",
  "d79b3027-4eb2-4521-8722-825acfee7d8b",
  "252a0825-40b9-4b98-be80-7658956f13e9",
  "17aa61c5-1c61-477e-a40a-e52c8ccd74b9",
  "b23cd6e0-91cd-4a8a-9869-b30366bf3966",
  "731eb2be-a74f-4070-b797-35bf7009e553",
  "ff86d432-7f27-47f8-b02f-b5c102ef6a55",
  "0f9acbf6-93b5-42c7-a227-fc7652755f65",
] as const;

const RoleNameIn = z.enum(WORKSPACE_ROLE_NAME_VALUES);
/** A role value (`roles`, `role`): the legacy code `A`/`M` or a static role UUID. */
const RoleValueIn = z.enum(["A", "M", ...WORKSPACE_ROLE_UUID_VALUES]);

/** Python's `max_length` counts code points, so an emoji icon made of a surrogate pair is one character. */
const codePoints = (max: number) => z.string().refine((s) => [...s].length <= max, { message: `String should have at most ${max} characters` });

export const WorkspaceParams = z.object({ workspace_uuid: Uuid });

export const WorkspaceListQuery = z.object({
  is_archived: queryBoolean(false),
  page: queryInt().min(1).default(1),
  page_size: queryInt().min(1).max(1000).default(25),
  search: z.string().optional(),
});
export type WorkspaceListQuery = z.output<typeof WorkspaceListQuery>;

export const CreateWorkspaceBody = z.object({
  name: z.string().min(1).max(255),
  description: z.string().max(255).default(""),
  icon: codePoints(2).default(""),
  add_all_org_members: z.boolean().default(false),
  admin_user_id: Uuid,
});
export type CreateWorkspaceBody = z.output<typeof CreateWorkspaceBody>;

/** A workspace's default guardrails are a short list: every config's checks run on each chat call that names none. */
export const MAX_DEFAULT_GUARDRAILS = 8;

/** The response cache keeps an answer a week at most: it is the workspace's content, kept no longer than an operator expects. */
export const MAX_CACHE_TTL_SECONDS = 604_800;

export const UpdateWorkspaceBody = z.object({
  name: z.string().min(1).max(255).nullish(),
  description: z.string().max(255).nullish(),
  icon: codePoints(2).nullish(),
  /** Extension: whether model-call spans keep message content (docs/decisions/0039); null returns to the deployment's default. */
  telemetry_content_capture: z.boolean().nullish(),
  /** Extension: keep model answers this long and answer identical calls from them (docs/routing.md, "Response cache"); null turns it off. */
  response_cache_ttl_seconds: z.number().int().min(1).max(MAX_CACHE_TTL_SECONDS).nullish(),
  /** Extension: the guardrails a chat call runs when it names none (docs/routing.md, "Guardrails"); null removes them. */
  default_guardrails: z.array(GuardrailConfig).max(MAX_DEFAULT_GUARDRAILS).nullish(),
});
export type UpdateWorkspaceBody = z.output<typeof UpdateWorkspaceBody>;

const MemberIn = z
  .object({
    role_names: z.array(RoleNameIn).min(1).nullish(),
    roles: z.array(RoleValueIn).min(1).nullish(),
    role_name: RoleNameIn.nullish(),
    role: RoleValueIn.nullish(),
    user_uuid: Uuid,
  })
  .refine((m) => !(m.role_names && m.roles), { message: "'role_names' and 'roles' are mutually exclusive", path: ["roles"] })
  .refine((m) => !(m.role_name && m.role), { message: "'role_name' and 'role' are mutually exclusive", path: ["role"] });
export type MemberIn = z.output<typeof MemberIn>;

export const MembersBody = z.object({ members: z.array(MemberIn).nullish() });
export type MembersBody = z.output<typeof MembersBody>;

export const RemoveMembersBody = z.object({ members: z.array(z.object({ user_uuid: Uuid })) });
export type RemoveMembersBody = z.output<typeof RemoveMembersBody>;

export const SpendLimitOut = z.object({
  value: z.number().nullable(),
  currency: z.string().nullable(),
  no_monthly_limit: z.boolean().nullable(),
});

export const WorkspaceOut = z.object({
  uuid: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  members_count: z.number().int().nullable(),
  /** Our spec's Workspace has it; there are no groups here, so it is always null. */
  groups_count: z.number().int().nullable(),
  spend_limit: SpendLimitOut.nullable(),
  is_default: z.boolean(),
  /** Extension: whether the workspace is archived (listed with `is_archived=true`). */
  is_archived: z.boolean(),
});
export type WorkspaceOut = z.output<typeof WorkspaceOut>;

export const WorkspaceEnrichedOut = WorkspaceOut.extend({
  raw_roles: z.array(z.string()).min(1),
  /** Deprecated: the first of `raw_roles`. */
  raw_role: z.string(),
});

export const WorkspaceListOut = z.object({
  object: z.literal("list"),
  items: z.array(WorkspaceOut),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

export const AddedMembersOut = z.object({ added_members_count: z.number().int() });
export const AddedOrUpdatedMembersOut = z.object({ added_members_count: z.number().int(), updated_members_count: z.number().int() });
export const RemovedMembersOut = z.object({ deleted_members_count: z.number().int(), not_deleted_members: z.array(z.string()).nullable() });
