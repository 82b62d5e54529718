import { randomUUID } from "node:crypto";
import type { ApiKeyRecord } from "../../../shared/domain/api-keys.js";
import type { Caller } from "../../../shared/domain/caller.js";
import type { ServiceAccountRecord } from "../../../shared/domain/identity/records.js";
import type { WorkspaceRoleName } from "../../../shared/domain/identity/roles.js";
import { anApiKeyRecord } from "../../support/builders.js";

/** Tenancy-table items of the service-account handler tests, keyed as shared/store/identity.ts keeps them. */

/** A workspace admin's key (a user's, with no user record behind it). */
export const anAdminOfItsWorkspace = (overrides: Partial<Caller> = {}): Caller => ({
  organization: randomUUID(),
  workspace: randomUUID(),
  principal: randomUUID(),
  principalType: "user",
  roles: ["workspace_admin"],
  admin: false,
  keyId: "0123456789abcdef",
  ...overrides,
});

export const aWorkspaceItem = (organization: string, id: string, fields: Record<string, unknown> = {}) => ({
  pk: `ORG#${organization}`,
  sk: `WS#${id}`,
  id,
  organization,
  name: "ws",
  isDefault: false,
  createdAt: "2026-01-01T00:00:00.000Z",
  ...fields,
});

export function aServiceAccount(overrides: Partial<ServiceAccountRecord> = {}): ServiceAccountRecord {
  return {
    id: randomUUID(),
    organization: randomUUID(),
    workspace: randomUUID(),
    name: "ci",
    description: null,
    roles: [],
    createdAt: "2026-01-02T00:00:00.000Z",
    updatedAt: "2026-01-02T00:00:00.000Z",
    deletedAt: null,
    ...overrides,
  };
}

export const aServiceAccountItem = (account: ServiceAccountRecord) => ({
  pk: `ORG#${account.organization}`,
  sk: `SA#${account.id}`,
  gsi1pk: `WSSA#${account.workspace}`,
  gsi1sk: `${account.createdAt}#${account.id}`,
  ...account,
});

export const aMembershipItem = (organization: string, workspace: string, user: string, roles: WorkspaceRoleName[]) => ({
  pk: `WS#${workspace}`,
  sk: `MEMBER#${user}`,
  gsi1pk: `USERWS#${user}`,
  gsi1sk: workspace,
  organization,
  workspace,
  user,
  roles,
  addedAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

/** A key of the account, as the tenancy table holds it (the record and its by-id pointer). */
export function aKeyOf(account: ServiceAccountRecord, overrides: Partial<ApiKeyRecord> = {}): { record: ApiKeyRecord; items: Record<string, unknown>[] } {
  const record = anApiKeyRecord({
    organization: account.organization,
    workspace: account.workspace,
    principal: account.id,
    principalType: "service_account",
    roles: [],
    admin: false,
    keyId: randomUUID().replaceAll("-", "").slice(0, 16),
    hash: randomUUID().replaceAll("-", ""),
    revokedAt: null,
    ...overrides,
  });
  return { record, items: anApiKeyItems(record) };
}

/** A key as the tenancy table holds it: the record under its hash, and the by-id pointer to it. */
export const anApiKeyItems = (record: ApiKeyRecord): Record<string, unknown>[] => [
  { pk: `KEY#${record.hash}`, sk: "#KEY", gsi1pk: `KEYS#${record.organization}`, gsi1sk: record.keyId, ...record },
  { pk: `KEYID#${record.keyId}`, sk: "#KEY", hash: record.hash },
];

/** The account as the API answers it. */
export const wireOf = (account: ServiceAccountRecord) => ({
  id: account.id,
  name: account.name,
  customer_id: account.organization,
  organization_id: account.organization,
  workspace_id: account.workspace,
  description: account.description,
  created_at: account.createdAt,
  updated_at: account.updatedAt,
  deleted_at: account.deletedAt,
});
