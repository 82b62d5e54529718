import { randomUUID } from "node:crypto";
import type { PrincipalType } from "../../domain/caller.js";
import { secretStore, tenancyStore, type Organization, type Workspace } from "../../store/tenancy.js";
import { hashApiKey, newApiKey, newKeyId, previewOf, type ApiKeyRecord } from "../../domain/api-keys.js";
import { NotFound } from "../../domain/errors.js";
import { recordAudit } from "../audit/record.js";

export interface NewKey {
  /** The secret itself: only here, never stored. */
  key: string;
  record: ApiKeyRecord;
}

/** What a key may do besides its roles: requests per minute, the models it may call, when it stops working. */
export type KeyLimits = Pick<KeyRequest, "rateLimitPerMinute" | "models" | "expiresAt">;

export interface KeyRequest {
  organization: string;
  workspace: string;
  name: string;
  admin: boolean;
  roles?: string[];
  /** Requests per minute the key may make (none when absent). */
  rateLimitPerMinute?: number;
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
    ...(request.rateLimitPerMinute ? { rateLimitPerMinute: request.rateLimitPerMinute } : {}),
    ...(request.models ? { models: request.models } : {}),
    ...(request.expiresAt ? { expiresAt: request.expiresAt } : {}),
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
  rate_limit_per_minute: record.rateLimitPerMinute ?? null,
  models: record.models ?? null,
  expires_at: record.expiresAt ?? null,
});

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
