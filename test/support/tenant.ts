import { randomUUID } from "node:crypto";
import type { Caller } from "../../shared/domain/caller.js";

export interface TestTenant {
  caller: Caller;
  key: string;
}

/**
 * A fresh organization workspace with an admin key (or a key holding just `roles`), in the embedded DynamoDB. Each test gets its own,
 * so tests never see one another's records.
 */
export async function newTenant(options: { admin?: boolean; roles?: string[]; rateLimitPerMinute?: number; workspace?: string; organization?: string } = {}): Promise<TestTenant> {
  const tenants = await import("../../shared/services/tenancy/tenants.js");
  const { secretStore } = await import("../../shared/store/tenancy.js");
  await secretStore.ensureUrlSigningSecret();
  const organization = options.organization ?? randomUUID();
  const workspace = options.workspace ?? (await tenants.createWorkspace(organization, "test")).id;
  const { key, record } = await tenants.createApiKey({ organization, workspace, name: "test", admin: options.admin ?? !options.roles, roles: options.roles, rateLimitPerMinute: options.rateLimitPerMinute, principal: { id: randomUUID(), type: "user" } });
  return {
    key,
    caller: {
      organization,
      workspace,
      principal: record.principal,
      principalType: record.principalType,
      roles: record.roles,
      admin: record.admin,
      keyId: record.keyId,
    },
  };
}
