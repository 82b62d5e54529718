import * as z from "zod";
import { queryBoolean, queryInt } from "./query.js";
import { ServiceAccountKeyOut } from "./service-account.js";

/*
 * Extension: the organization's API keys over the admin API (`/v1/admin/api-keys`), what `npm run keys -- list|revoke`
 * and `npm run users -- key` do (docs/decisions/0073-users-and-api-keys-over-the-api.md). A key is shown as the
 * service-account key routes show theirs (same fields, limits included), with its principal named generally; the
 * secret appears once, in the create answer, and neither it nor its hash is ever stored or listed.
 */

export const ApiKeyParams = z.object({ key_id: z.string().min(1) });

export const ApiKeyListQuery = z.object({
  /** Only the keys of this workspace. */
  workspace_id: z.string().min(1).optional(),
  /** Only the keys of this user (or service account: any principal id). */
  user_id: z.string().min(1).optional(),
  /** Revoked keys are listed only when asked. */
  include_revoked: queryBoolean(false),
  page: queryInt().min(1).default(1),
  page_size: queryInt().min(1).max(1000).default(25),
});
export type ApiKeyListQuery = z.output<typeof ApiKeyListQuery>;

export const ApiKeyOut = ServiceAccountKeyOut.omit({ service_account_id: true }).extend({
  /** Who the key stands for: a user, or a service account (keys of `npm run keys -- create` stand for themselves, as one). */
  type: z.enum(["user", "service_account"]),
  principal_id: z.string(),
  /** The principal when it is a user, else null. */
  user_id: z.string().nullable(),
  /** An admin key stands for the organization's admin. */
  admin: z.boolean(),
  /** The key's own roles; a user's or service account's key has none and acts with its principal's roles, read at each call. */
  roles: z.array(z.string()),
  /** `revoked` once revoked, `expired` past `expires_at`, else `active`. */
  state: z.enum(["active", "revoked", "expired"]),
});
export type ApiKeyOut = z.output<typeof ApiKeyOut>;

export const ApiKeyListOut = z.object({
  object: z.literal("list"),
  data: z.array(ApiKeyOut),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

/** A key for a user in a workspace it belongs to (organization admins belong to every workspace). Unknown fields are refused. */
export const CreateApiKeyBody = z.strictObject({
  workspace_id: z.string().min(1),
  user_id: z.string().min(1),
  /** The user's email address when left out. */
  name: z.string().min(1).max(256).optional(),
});
export type CreateApiKeyBody = z.output<typeof CreateApiKeyBody>;

/** The one answer that carries the secret itself: it is never stored, only its hash. */
export const NewApiKeyOut = ApiKeyOut.extend({ key: z.string() });
