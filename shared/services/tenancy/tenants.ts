import { randomUUID } from "node:crypto";
import type { PrincipalType } from "../../domain/caller.js";
import { secretStore, tenancyStore, type Organization, type Workspace } from "../../store/tenancy.js";
import { hashApiKey, newApiKey, newKeyId, previewOf, type ApiKeyRecord } from "../../domain/api-keys.js";

export interface NewKey {
  /** The secret itself: only here, never stored. */
  key: string;
  record: ApiKeyRecord;
}

export interface KeyRequest {
  organization: string;
  workspace: string;
  name: string;
  admin: boolean;
  roles?: string[];
  /** Requests per minute the key may make (none when absent). */
  rateLimitPerMinute?: number;
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
  };
  await tenancyStore.putApiKey(record);
  return { key, record };
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
