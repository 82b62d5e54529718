import * as z from "zod";
import { queryBoolean, queryInt } from "./query.js";

/**
 * Service accounts (beta) as the spec and the official SDK write them (`ServiceAccount`,
 * `CreateServiceAccountRequest`, `UpdateServiceAccountRequest`, `SetServiceAccountRolesRequest`): the
 * OpenAPI has no such paths, so request bodies reject unknown fields to catch what we would otherwise ignore
 * (a `name` in a PATCH is not a rename).
 */

export const ServiceAccountParams = z.object({ service_account_id: z.string().min(1) });
export const ServiceAccountKeyParams = z.object({ service_account_id: z.string().min(1), key_id: z.string().min(1) });

/** The SDK always sends `offset`, `limit` and `include_deleted`; other clients get these defaults. */
export const ServiceAccountListQuery = z.object({
  offset: queryInt().min(0).default(0),
  limit: queryInt().min(1).max(1000).default(100),
  include_deleted: queryBoolean(false),
  workspace_id: z.string().min(1).optional(),
});
export type ServiceAccountListQuery = z.output<typeof ServiceAccountListQuery>;

export const AssignableRolesQuery = z.object({ workspace_id: z.string().min(1) });

export const CreateServiceAccountBody = z.strictObject({
  name: z.string().min(1).max(256),
  workspace_id: z.string().min(1),
  description: z.string().max(2048).nullish(),
});
export type CreateServiceAccountBody = z.output<typeof CreateServiceAccountBody>;

export const UpdateServiceAccountBody = z.strictObject({ description: z.string().max(2048).nullish() });
export type UpdateServiceAccountBody = z.output<typeof UpdateServiceAccountBody>;

/** Each id may be any spelling of a workspace role: its static UUID, its name, or `A` / `M`. */
export const SetServiceAccountRolesBody = z.strictObject({ role_ids: z.array(z.string()) });

export const ServiceAccountOut = z.object({
  id: z.string(),
  name: z.string(),
  /** The organization's id: we have no separate billing customer (docs/decisions/0011-service-accounts.md). */
  customer_id: z.string(),
  organization_id: z.string(),
  workspace_id: z.string(),
  description: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
});
export type ServiceAccountOut = z.output<typeof ServiceAccountOut>;

export const ServiceAccountListOut = z.object({ items: z.array(ServiceAccountOut) });

export const ServiceAccountRolesOut = z.object({ items: z.array(z.object({ role_id: z.string() })) });
export type ServiceAccountRolesOut = z.output<typeof ServiceAccountRolesOut>;

export const AssignableRolesOut = z.object({
  items: z.array(z.object({ uuid: z.string(), name: z.string(), description: z.string(), is_custom_role: z.boolean() })),
});

/** A key's limits (docs/routing.md, "Per-key limits"), each optional when a key is made and nullable (cleared) when changed. */
const keyLimitFields = {
  /** Requests per minute the key may make (docs/spend.md). */
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000),
  /** Tokens (prompt and completion) per minute and per day the key may use. */
  tokens_per_minute: z.number().int().min(1).max(1_000_000_000),
  tokens_per_day: z.number().int().min(1).max(100_000_000_000),
  /** What the key may spend in a month, in the price list's currency (USD). */
  monthly_budget: z.number().nonnegative().max(1e9),
  /** The models the key may call, by id or alias. */
  models: z.array(z.string().min(1).max(256).regex(/^[^,]+$/, "A model name holds no comma")).min(1).max(100),
  /** When the key stops working (an ISO time in the future). */
  expires_at: z.iso.datetime({ offset: true }).refine((at) => Date.parse(at) > Date.now(), "Must be in the future"),
};

/** Extension: a key of a service account (`POST /v1/service-accounts/{id}/keys`); a limit left out is no limit. */
export const CreateServiceAccountKeyBody = z.strictObject({ name: z.string().min(1).max(256).optional() }).extend(z.strictObject(keyLimitFields).partial().shape);
export type CreateServiceAccountKeyBody = z.output<typeof CreateServiceAccountKeyBody>;

const { rate_limit_per_minute, tokens_per_minute, tokens_per_day, monthly_budget, models, expires_at } = keyLimitFields;

/** Extension: `PATCH /v1/service-accounts/{id}/keys/{key_id}` changes a key's limits; null clears one, a field left out keeps it. */
export const UpdateServiceAccountKeyBody = z
  .strictObject({
    rate_limit_per_minute: rate_limit_per_minute.nullish(),
    tokens_per_minute: tokens_per_minute.nullish(),
    tokens_per_day: tokens_per_day.nullish(),
    monthly_budget: monthly_budget.nullish(),
    models: models.nullish(),
    expires_at: expires_at.nullish(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), { message: "Give at least one limit to change (null clears it)" });
export type UpdateServiceAccountKeyBody = z.output<typeof UpdateServiceAccountKeyBody>;

export const ServiceAccountKeyOut = z.object({
  id: z.string(),
  object: z.literal("api_key"),
  name: z.string(),
  /** The first characters of the key, to tell keys apart. */
  preview: z.string(),
  service_account_id: z.string(),
  workspace_id: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  rate_limit_per_minute: z.number().nullable(),
  tokens_per_minute: z.number().nullable(),
  tokens_per_day: z.number().nullable(),
  monthly_budget: z.number().nullable(),
  models: z.array(z.string()).nullable(),
  expires_at: z.string().nullable(),
});
export type ServiceAccountKeyOut = z.output<typeof ServiceAccountKeyOut>;

/** The one answer that carries the secret itself: it is never stored, only its hash. */
export const NewServiceAccountKeyOut = ServiceAccountKeyOut.extend({ key: z.string() });

export const ServiceAccountKeyListOut = z.object({ items: z.array(ServiceAccountKeyOut) });
