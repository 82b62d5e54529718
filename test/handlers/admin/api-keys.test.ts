import { PutCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler as createKey } from "../../../functions/admin/create-api-key.js";
import { handler as listKeys } from "../../../functions/admin/list-api-keys.js";
import { handler as revokeKey } from "../../../functions/admin/revoke-api-key.js";
import type { ApiKeyRecord } from "../../../shared/domain/api-keys.js";
import { hashApiKey } from "../../../shared/domain/api-keys.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anApiKeyRecord, anEvent, invoke } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";
import { anApiKeyItems } from "../service-accounts/tenancy-items.js";
import { aMemberItem, aUserItem, aUserRecord, aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo({ resolves: {} });
const NOW = freezeDate("2026-03-01T12:00:00.000Z");
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const notAdmin = aCaller({ roles: ["workspace_admin"], organization: admin.organization, workspace: admin.workspace });
const adminRequired = aPlatformError({ message: "This route needs an admin API key", type: "permission_error", param: null, code: "admin_required" });

/** A key as the tenancy table holds it: the record, on the organization's key index, and its by-id pointer. */
function aKey(overrides: Partial<ApiKeyRecord> = {}): { record: ApiKeyRecord; items: Record<string, unknown>[] } {
  const record = anApiKeyRecord({
    organization: admin.organization,
    workspace: admin.workspace,
    keyId: crypto.randomUUID().replaceAll("-", "").slice(0, 16),
    hash: crypto.randomUUID().replaceAll("-", ""),
    ...overrides,
  });
  return { record, items: anApiKeyItems(record) };
}

const limitsNone = { rate_limit_per_minute: null, tokens_per_minute: null, tokens_per_day: null, monthly_budget: null, models: null, expires_at: null };

describe("GET /v1/admin/api-keys", () => {
  const list = (query: Record<string, string> = {}, caller = admin) => anEvent({ method: "GET", path: "/v1/admin/api-keys", query, caller });

  it("answers the organization's live keys oldest first, as previews with their principal, never a key or a hash", async () => {
    const user = crypto.randomUUID();
    const mine = aKey({ name: "laptop", principal: user, principalType: "user", createdAt: "2026-01-02T00:00:00.000Z", rateLimitPerMinute: 30 });
    const robot = aKey({ name: "ci", principalType: "service_account", admin: true, roles: ["workspace_admin", "organization_admin"], createdAt: "2026-01-01T00:00:00.000Z" });
    const revoked = aKey({ revokedAt: "2026-02-01T00:00:00.000Z" });
    const foreign = aKey({ organization: crypto.randomUUID() });
    serveTenancyTable(dynamo, [...mine.items, ...robot.items, ...revoked.items, ...foreign.items]);

    const response = await invoke(listKeys, list());

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      object: "list",
      data: [
        {
          id: robot.record.keyId,
          object: "api_key",
          name: "ci",
          preview: "pak_0123…",
          type: "service_account",
          principal_id: robot.record.principal,
          user_id: null,
          workspace_id: admin.workspace,
          admin: true,
          roles: ["workspace_admin", "organization_admin"],
          created_at: "2026-01-01T00:00:00.000Z",
          revoked_at: null,
          state: "active",
          ...limitsNone,
        },
        {
          id: mine.record.keyId,
          object: "api_key",
          name: "laptop",
          preview: "pak_0123…",
          type: "user",
          principal_id: user,
          user_id: user,
          workspace_id: admin.workspace,
          admin: false,
          roles: [],
          created_at: "2026-01-02T00:00:00.000Z",
          revoked_at: null,
          state: "active",
          ...limitsNone,
          rate_limit_per_minute: 30,
        },
      ],
      total: 2,
      page: 1,
      page_size: 25,
    });
    expect(response.body).not.toContain(mine.record.hash);
    const queries = dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries).toMatchObject([{ IndexName: "gsi1", ExpressionAttributeValues: { ":p": `KEYS#${admin.organization}` } }]);
  });

  it("filters by workspace_id and user_id, shows revoked and expired keys with include_revoked, and pages", async () => {
    const user = crypto.randomUUID();
    const other = crypto.randomUUID();
    const revoked = aKey({ principal: user, principalType: "user", workspace: other, revokedAt: "2026-02-01T00:00:00.000Z", createdAt: "2026-01-01T00:00:00.000Z" });
    const expired = aKey({ principal: user, principalType: "user", workspace: other, expiresAt: "2026-02-01T00:00:00.000Z", createdAt: "2026-01-02T00:00:00.000Z" });
    const elsewhere = aKey({ principal: crypto.randomUUID(), principalType: "user", workspace: other });
    const sameUserOtherWorkspace = aKey({ principal: user, principalType: "user" });
    serveTenancyTable(dynamo, [...revoked.items, ...expired.items, ...elsewhere.items, ...sameUserOtherWorkspace.items]);

    const live = await invoke(listKeys, list({ workspace_id: other, user_id: user }));
    const all = await invoke(listKeys, list({ workspace_id: other, user_id: user, include_revoked: "true" }));
    const second = await invoke(listKeys, list({ workspace_id: other, user_id: user, include_revoked: "true", page: "2", page_size: "1" }));

    expect(live.json.data.map((k: { id: string; state: string }) => [k.id, k.state])).toStrictEqual([[expired.record.keyId, "expired"]]);
    expect(all.json.data.map((k: { id: string; state: string }) => [k.id, k.state])).toStrictEqual([
      [revoked.record.keyId, "revoked"],
      [expired.record.keyId, "expired"],
    ]);
    expect(second.json).toMatchObject({ total: 2, page: 2, page_size: 1, data: [{ id: expired.record.keyId }] });
  });

  it("answers 422 for page 0 and 403 admin_required to a key that is not an admin's", async () => {
    expect((await invoke(listKeys, list({ page: "0" }))).statusCode).toBe(422);

    const refused = await invoke(listKeys, list({}, notAdmin));

    expect(refused.statusCode).toBe(403);
    expect(refused.json).toStrictEqual(adminRequired);
  });
});

describe("POST /v1/admin/api-keys", () => {
  const ws = aWorkspaceRecord({ organization: admin.organization, id: admin.workspace });
  const create = (body: unknown, caller = admin) => aJsonEvent(body, { method: "POST", path: "/v1/admin/api-keys", caller });

  function served(user = aUserRecord({ organization: admin.organization }), member = true) {
    const tables = serveTenancyTable(dynamo, [aWorkspaceItem(ws), aUserItem(user), ...(member ? [aMemberItem({ organization: ws.organization, workspace: ws.id, user: user.id, roles: ["user"] })] : [])]);
    return { user, tables };
  }

  it("answers 201 with the key, shown this once, for the user as principal, and stores only its hash", async () => {
    const { user } = served();

    const response = await invoke(createKey, create({ workspace_id: ws.id, user_id: user.id, name: "laptop" }));

    expect(response.statusCode).toBe(201);
    expect(response.headers?.["cache-control"]).toBe("no-store");
    expect(response.json).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      object: "api_key",
      name: "laptop",
      preview: `${response.json.key.slice(0, 8)}…`,
      type: "user",
      principal_id: user.id,
      user_id: user.id,
      workspace_id: ws.id,
      admin: false,
      roles: [],
      created_at: NOW,
      revoked_at: null,
      state: "active",
      ...limitsNone,
      key: expect.stringMatching(/^pak_/),
    });
    const [stored] = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(stored!.Put!.Item).toMatchObject({ hash: hashApiKey(response.json.key), principal: user.id, principalType: "user", workspace: ws.id, roles: [], admin: false });
    expect(JSON.stringify(dynamo.calls().map((c) => c.args[0].input))).not.toContain(response.json.key);
    const audit = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input.Item!).find((item) => item.operation === "key.create");
    expect(audit).toMatchObject({ organization: admin.organization, targets: [{ type: "api_key", id: response.json.id }, { type: "user", id: user.id }] });
  });

  it("names the key after the user's address when no name is given", async () => {
    const { user } = served();

    const response = await invoke(createKey, create({ workspace_id: ws.id, user_id: user.id }));

    expect(response.json.name).toBe(user.email);
  });

  it("answers 400 not_a_member for a user outside the workspace, and makes no key", async () => {
    const { user } = served(undefined, false);

    const response = await invoke(createKey, create({ workspace_id: ws.id, user_id: user.id }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "invalid_request_error", code: "not_a_member" });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it("lets an organization admin have a key in a workspace it never joined", async () => {
    const { user } = served(aUserRecord({ organization: admin.organization, organizationRoles: ["organization_admin"] }), false);

    expect((await invoke(createKey, create({ workspace_id: ws.id, user_id: user.id }))).statusCode).toBe(201);
  });

  it("answers 404 for a user or a workspace of another organization", async () => {
    const { user } = served();
    const stranger = aUserRecord();
    const foreign = aWorkspaceRecord();
    serveTenancyTable(dynamo, [aWorkspaceItem(ws), aWorkspaceItem(foreign), aUserItem(user), aUserItem(stranger)]);

    const noUser = await invoke(createKey, create({ workspace_id: ws.id, user_id: stranger.id }));
    const noWorkspace = await invoke(createKey, create({ workspace_id: foreign.id, user_id: user.id }));

    expect(noUser.json).toMatchObject({ type: "not_found_error", code: "user_not_found" });
    expect(noWorkspace.json).toMatchObject({ type: "not_found_error", code: "workspace_not_found" });
    expect([noUser.statusCode, noWorkspace.statusCode]).toStrictEqual([404, 404]);
  });

  it("answers 422 for a missing user_id or an unknown field, and 403 to a key that is not an admin's", async () => {
    const { user } = served();
    for (const body of [{ workspace_id: ws.id }, { workspace_id: ws.id, user_id: user.id, admin: true }]) {
      expect((await invoke(createKey, create(body))).statusCode, JSON.stringify(body)).toBe(422);
    }
    expect((await invoke(createKey, create({ workspace_id: ws.id, user_id: user.id }, notAdmin))).statusCode).toBe(403);
  });
});

describe("DELETE /v1/admin/api-keys/{key_id}", () => {
  const revoking = (id: string, caller = admin) => anEvent({ method: "DELETE", path: `/v1/admin/api-keys/${id}`, pathParameters: { key_id: id }, caller });

  it("answers 204, revokes the key and records key.revoke", async () => {
    const key = aKey({ principal: crypto.randomUUID(), principalType: "user" });
    const tables = serveTenancyTable(dynamo, key.items);

    const response = await invoke(revokeKey, revoking(key.record.keyId));

    expect(response.statusCode).toBe(204);
    expect(tables.items("tenancy").find((i) => i.pk === `KEY#${key.record.hash}`)).toMatchObject({ revokedAt: NOW });
    const audit = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input.Item!).find((item) => item.operation === "key.revoke");
    expect(audit).toMatchObject({ targets: [{ type: "api_key", id: key.record.keyId }, { type: "user", id: key.record.principal }], after: { revoked_at: NOW } });
  });

  it("answers 204 again for a revoked key, and records nothing", async () => {
    const key = aKey({ revokedAt: "2026-02-01T00:00:00.000Z" });
    serveTenancyTable(dynamo, key.items);

    const response = await invoke(revokeKey, revoking(key.record.keyId));

    expect(response.statusCode).toBe(204);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it("answers 404 for a key of another organization, and for no key, revoking nothing", async () => {
    const foreign = aKey({ organization: crypto.randomUUID() });
    const tables = serveTenancyTable(dynamo, foreign.items);

    for (const id of [foreign.record.keyId, "ffffffffffffffff"]) {
      const response = await invoke(revokeKey, revoking(id));
      expect(response.statusCode).toBe(404);
      expect(response.json).toMatchObject({ type: "not_found_error", code: "api_key_not_found" });
    }
    expect(tables.items("tenancy").find((i) => i.pk === `KEY#${foreign.record.hash}`)!.revokedAt).toBeNull();
  });

  it("answers 403 admin_required to a key that is not an admin's", async () => {
    const key = aKey();
    serveTenancyTable(dynamo, key.items);

    const response = await invoke(revokeKey, revoking(key.record.keyId, notAdmin));

    expect(response.statusCode).toBe(403);
    expect(response.json).toStrictEqual(adminRequired);
  });
});
