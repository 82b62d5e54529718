import { randomUUID } from "node:crypto";
import type { PrincipalType } from "../../domain/caller.js";
import { secretStore, tenancyStore, type Organization, type Workspace } from "../../store/tenancy.js";
import { hashApiKey, KEY_LIMIT_NAMES, KEY_LIMITS, newApiKey, newKeyId, previewOf, type ApiKeyRecord, type KeyLimitField } from "../../domain/api-keys.js";
import { NotFound } from "../../domain/errors.js";
import { recordAudit } from "../audit/record.js";
import { changed } from "../../domain/audit.js";
import { dayOf, monthOf } from "../../domain/pricing.js";
import { usageStore } from "../../store/usage.js";

export interface NewKey {
  /** The secret itself: only here, never stored. */
  key: string;
  record: ApiKeyRecord;
}

/** What a key may do besides its roles: requests and tokens per minute, tokens per day, a monthly budget, the models it may call, when it stops working. */
export type KeyLimits = Pick<KeyRequest, KeyLimitField>;

export interface KeyRequest {
  organization: string;
  workspace: string;
  name: string;
  admin: boolean;
  roles?: string[];
  /** Requests per minute the key may make (none when absent). */
  rateLimitPerMinute?: number;
  /** Tokens per minute and per day the key may use (none when absent). */
  tokensPerMinute?: number;
  tokensPerDay?: number;
  /** What the key may spend in a month (none when absent). */
  monthlyBudget?: number;
  /** The models the key may call (any when absent). */
  models?: string[];
  /** When the key stops working (ISO time; never when absent). */
  expiresAt?: string;
  principal?: { id: string; type: PrincipalType };
  /** Use this exact secret instead of generating one (the dev stack's PLATFORM_API_KEY). */
  key?: string;
}

export async function createApiKey(request: KeyRequest): Promise<NewKey> {
  const key = request.key ?? newApiKey();
  const now = new Date().toISOString();
  const principal = request.principal ?? { id: randomUUID(), type: "service_account" as const };
  await tenancyStore.putPrincipal({ id: principal.id, organization: request.organization, type: principal.type, name: request.name, createdAt: now });
  const record: ApiKeyRecord = {
    keyId: newKeyId(),
    hash: hashApiKey(key),
    name: request.name,
    organization: request.organization,
    workspace: request.workspace,
    principal: principal.id,
    principalType: principal.type,
    roles: request.roles ?? (request.admin ? ["workspace_admin", "organization_admin"] : []),
    admin: request.admin,
    createdAt: now,
    revokedAt: null,
    preview: previewOf(key),
    ...Object.fromEntries(KEY_LIMITS.filter((limit) => request[limit] !== undefined).map((limit) => [limit, request[limit]])),
  };
  await tenancyStore.putApiKey(record);
  await recordAudit({
    organization: record.organization,
    workspace: record.workspace,
    operation: "key.create",
    targets: [{ type: "api_key", id: record.keyId }, { type: record.principalType, id: record.principal }],
    after: keyValues(record),
  });
  return { key, record };
}

/** What the audit log keeps of a key: never the key, its hash or its preview. */
export const keyValues = (record: ApiKeyRecord) => ({
  name: record.name,
  principal_type: record.principalType,
  principal_id: record.principal,
  roles: record.roles,
  admin: record.admin,
  ...keyLimitValues(record),
});

/** A key's limits as the API and the audit log name them: every limit, null when the key has none. */
export type KeyLimitValues = { [K in KeyLimitField as (typeof KEY_LIMIT_NAMES)[K]]: NonNullable<KeyLimits[K]> | null };

/** A key's limits as the API and the audit log show them (null: no limit). */
export const keyLimitValues = (record: KeyLimits): KeyLimitValues => Object.fromEntries(KEY_LIMITS.map((field) => [KEY_LIMIT_NAMES[field], record[field] ?? null])) as KeyLimitValues;

/** Changes to a key's limits: a value sets one, null clears it, absent keeps it. */
export type KeyLimitChanges = { [K in KeyLimitField]?: KeyLimits[K] | null };

/** The limits a key route's body gives, by their API names (an expiry in any offset), as the key record keeps them. */
export function keyLimitsFrom(body: Partial<Record<keyof KeyLimitValues, unknown>>): KeyLimitChanges {
  const given = KEY_LIMITS.filter((field) => body[KEY_LIMIT_NAMES[field]] !== undefined);
  return Object.fromEntries(
    given.map((field) => {
      const value = body[KEY_LIMIT_NAMES[field]];
      return [field, field === "expiresAt" && typeof value === "string" ? new Date(value).toISOString() : value];
    }),
  );
}

/**
 * Changes a live key's limits (the service-account key route, the keys CLI), one audit event with the values before
 * and after. Like a revocation, the change reaches calls within the authorizer's cache time. A monthly budget given
 * to a key that had none starts from what the key has spent this month (its day totals), not from zero.
 */
export async function updateKeyLimits(keyId: string, changes: KeyLimitChanges, now = new Date()): Promise<ApiKeyRecord> {
  const before = await tenancyStore.getApiKey(keyId);
  if (!before || before.revokedAt) throw new NotFound("api_key", keyId);
  const set = Object.fromEntries(KEY_LIMITS.filter((limit) => changes[limit] !== undefined && changes[limit] !== null).map((limit) => [limit, changes[limit]]));
  const remove = KEY_LIMITS.filter((limit) => changes[limit] === null);
  if (changes.monthlyBudget !== undefined && changes.monthlyBudget !== null && before.monthlyBudget === undefined) await startKeyMonth(before, now);
  const after = await tenancyStore.updateApiKey(before.hash, set, remove);
  if (!after) throw new NotFound("api_key", keyId);
  await recordAudit({
    organization: after.organization,
    workspace: after.workspace,
    operation: "key.update",
    targets: [{ type: "api_key", id: keyId }, { type: after.principalType, id: after.principal }],
    ...changed(keyLimitValues(before), keyLimitValues(after)),
  });
  return after;
}

/** The key's month counter, from its day totals so far (only keys with a budget keep one). */
async function startKeyMonth(key: ApiKeyRecord, now: Date): Promise<void> {
  const rows = await usageStore.dailyTotals(key.workspace, `${monthOf(now)}-01`, dayOf(now));
  const spent = rows.filter((row) => row.keyId === key.keyId).reduce((sum, row) => sum + row.costMicros, 0);
  await usageStore.setKeyMonth(key.workspace, key.keyId, monthOf(now), spent, now.toISOString());
}

/** Revokes a key by id (the keys CLI); revoking a revoked key changes nothing and records nothing. */
export async function revokeKey(keyId: string, now = new Date()): Promise<ApiKeyRecord> {
  const before = await tenancyStore.getApiKey(keyId);
  if (!before) throw new NotFound("api_key", keyId);
  if (before.revokedAt) return before;
  const revoked = await tenancyStore.revokeApiKey(keyId, now.toISOString());
  if (!revoked) throw new NotFound("api_key", keyId);
  await recordAudit({
    organization: revoked.organization,
    workspace: revoked.workspace,
    operation: "key.revoke",
    targets: [{ type: "api_key", id: keyId }, { type: revoked.principalType, id: revoked.principal }],
    before: { revoked_at: null },
    after: { revoked_at: revoked.revokedAt },
  });
  return revoked;
}

/**
 * A new URL signing secret (the keys CLI's rotate-url-secret); false when there is none to rotate. The event
 * says whether the previous one keeps verifying, never either secret. The secret is the deployment's, not an
 * organization's: the event is written to every organization's log, since each one's signed URLs change.
 */
export async function rotateUrlSigningSecret(options: { overlap: boolean; now: number }): Promise<boolean> {
  if (!(await secretStore.rotateUrlSigningSecret(options))) return false;
  for (const organization of await tenancyStore.listOrganizations()) {
    await recordAudit({
      organization: organization.id,
      operation: "url-secret.rotate",
      targets: [{ type: "url_signing_secret", id: "url-signing-secret" }],
      after: { overlap: options.overlap, rotated_at: new Date(options.now * 1000).toISOString() },
    });
  }
  return true;
}

/** An active key record for exactly this secret, if one exists. */
export async function findKey(key: string): Promise<ApiKeyRecord | undefined> {
  const record = await tenancyStore.getApiKeyByHash(hashApiKey(key));
  return record && !record.revokedAt ? record : undefined;
}

/**
 * The organization and its default workspace, created on first use, plus the system secret for signed
 * URLs. Safe to run again: what exists is kept.
 */
export async function bootstrap(names: { organization: string; workspace: string }): Promise<{ organization: Organization; workspace: Workspace }> {
  await secretStore.ensureUrlSigningSecret();
  const now = new Date().toISOString();
  const existing = (await tenancyStore.listOrganizations()).find((o) => o.name === names.organization);
  const organization = existing ?? { id: randomUUID(), name: names.organization, createdAt: now };
  if (!existing) await tenancyStore.putOrganization(organization);
  const workspaces = await tenancyStore.listWorkspaces(organization.id);
  const workspace = workspaces.find((w) => w.isDefault) ?? {
    id: randomUUID(),
    organization: organization.id,
    name: names.workspace,
    isDefault: true,
    createdAt: now,
  };
  if (!workspaces.some((w) => w.id === workspace.id)) await tenancyStore.putWorkspace(workspace);
  return { organization, workspace };
}

/** A further workspace in an organization (tests use one per case for isolation). */
export async function createWorkspace(organization: string, name: string): Promise<Workspace> {
  const workspace = { id: randomUUID(), organization, name, isDefault: false, createdAt: new Date().toISOString() };
  await tenancyStore.putWorkspace(workspace);
  return workspace;
}
