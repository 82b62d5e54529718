import { PutCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler as createKey } from "../../../functions/service-accounts/create-key.js";
import { handler as listKeys } from "../../../functions/service-accounts/list-keys.js";
import { handler as revokeKey } from "../../../functions/service-accounts/revoke-key.js";
import { handler as updateKey } from "../../../functions/service-accounts/update-key.js";
import { hashApiKey } from "../../../shared/domain/api-keys.js";
import type { Caller } from "../../../shared/domain/caller.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aKeyOf, anAdminOfItsWorkspace, aServiceAccount, aServiceAccountItem, aWorkspaceItem } from "./tenancy-items.js";

const dynamo = mockDynamo({ resolves: {} });
const NOW = freezeDate("2026-03-01T12:00:00.000Z");

function anAccountServed(overrides: Parameters<typeof aServiceAccount>[0] = {}, items: (account: ReturnType<typeof aServiceAccount>) => Record<string, unknown>[] = () => []) {
  const caller = anAdminOfItsWorkspace();
  const account = aServiceAccount({ organization: caller.organization, workspace: caller.workspace, ...overrides });
  const tables = serveTables(dynamo, { tenancy: [aWorkspaceItem(caller.organization, caller.workspace), aServiceAccountItem(account), ...items(account)] }, { writes: true });
  return { caller, account, tables };
}

const keysPath = (id: string) => `/v1/service-accounts/${id}/keys`;

describe("POST /v1/service-accounts/{service_account_id}/keys", () => {
  const creating = (id: string, caller: Caller, body: unknown = {}) => aJsonEvent(body, { path: keysPath(id), pathParameters: { service_account_id: id }, caller });

  it("answers 201 with the key, shown this once, and stores only its hash, for the account as principal", async () => {
    const { caller, account } = anAccountServed();

    const response = await invoke(createKey, creating(account.id, caller, { name: "deploy" }));

    expect(response.statusCode).toBe(201);
    expect(response.headers?.["cache-control"]).toBe("no-store");
    expect(response.json).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      object: "api_key",
      name: "deploy",
      preview: `${response.json.key.slice(0, 8)}…`,
      service_account_id: account.id,
      workspace_id: account.workspace,
      created_at: NOW,
      revoked_at: null,
      rate_limit_per_minute: null,
      tokens_per_minute: null,
      tokens_per_day: null,
      monthly_budget: null,
      models: null,
      expires_at: null,
      key: expect.stringMatching(/^pak_/),
    });
    const [stored] = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(stored!.Put!.Item).toMatchObject({ hash: hashApiKey(response.json.key), principal: account.id, principalType: "service_account", workspace: account.workspace, roles: [], admin: false });
    expect(JSON.stringify(dynamo.calls().map((c) => c.args[0].input))).not.toContain(response.json.key);
  });

  it("gives the key the per-minute rate limit asked for", async () => {
    const { caller, account } = anAccountServed();

    const response = await invoke(createKey, creating(account.id, caller, { rate_limit_per_minute: 30 }));

    expect(response.json.rate_limit_per_minute).toBe(30);
    const [stored] = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(stored!.Put!.Item).toMatchObject({ rateLimitPerMinute: 30 });
  });

  it("limits the key to the models asked for and ends it at the time asked for, both in the audit event", async () => {
    const { caller, account } = anAccountServed();

    const response = await invoke(createKey, creating(account.id, caller, { models: ["mistral-small-latest", "codestral"], expires_at: "2026-04-01T00:00:00+02:00" }));

    expect(response.statusCode).toBe(201);
    expect(response.json).toMatchObject({ models: ["mistral-small-latest", "codestral"], expires_at: "2026-03-31T22:00:00.000Z" });
    const [stored] = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(stored!.Put!.Item).toMatchObject({ models: ["mistral-small-latest", "codestral"], expiresAt: "2026-03-31T22:00:00.000Z" });
    const audit = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input.Item!).find((item) => item.operation === "key.create");
    expect(audit!.after).toMatchObject({ models: ["mistral-small-latest", "codestral"], expires_at: "2026-03-31T22:00:00.000Z" });
  });

  it.each([
    [{ expires_at: "2026-02-28T00:00:00Z" }, "expires_at"],
    [{ expires_at: "tomorrow" }, "expires_at"],
    [{ models: [] }, "models"],
    [{ models: ["a,b"] }, "models"],
  ])("refuses %j with 422 and creates nothing", async (body, field) => {
    const { caller, account } = anAccountServed();

    const response = await invoke(createKey, creating(account.id, caller, body));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toContain(field);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it("names the key after the account when no name is given", async () => {
    const { caller, account } = anAccountServed({ name: "ci" });

    expect((await invoke(createKey, creating(account.id, caller))).json.name).toBe("ci key");
  });

  it("answers 409 for a deleted account, and creates nothing", async () => {
    const { caller, account } = anAccountServed({ deletedAt: NOW });

    expect((await invoke(createKey, creating(account.id, caller))).statusCode).toBe(409);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe("GET /v1/service-accounts/{service_account_id}/keys", () => {
  it("answers the account's keys as previews, never a key or a hash", async () => {
    const other = aServiceAccount();
    let mine: ReturnType<typeof aKeyOf> | undefined;
    const { caller, account } = anAccountServed({}, (a) => {
      mine = aKeyOf(a);
      return [...mine.items, ...aKeyOf({ ...other, organization: a.organization }).items];
    });

    const response = await invoke(listKeys, anEvent({ path: keysPath(account.id), pathParameters: { service_account_id: account.id }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      items: [
        {
          id: mine!.record.keyId,
          object: "api_key",
          name: mine!.record.name,
          preview: mine!.record.preview,
          service_account_id: account.id,
          workspace_id: account.workspace,
          created_at: mine!.record.createdAt,
          revoked_at: null,
          rate_limit_per_minute: null,
          tokens_per_minute: null,
          tokens_per_day: null,
          monthly_budget: null,
          models: null,
          expires_at: null,
        },
      ],
    });
  });
});

describe("DELETE /v1/service-accounts/{service_account_id}/keys/{key_id}", () => {
  const revoking = (id: string, keyId: string, caller: Caller) =>
    anEvent({ method: "DELETE", path: `${keysPath(id)}/${keyId}`, pathParameters: { service_account_id: id, key_id: keyId }, caller });

  it("answers 204 and revokes the key", async () => {
    let key: ReturnType<typeof aKeyOf> | undefined;
    const { caller, account, tables } = anAccountServed({}, (a) => (key = aKeyOf(a)).items);

    const response = await invoke(revokeKey, revoking(account.id, key!.record.keyId, caller));

    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(tables.items("tenancy").find((i) => i.pk === `KEY#${key!.record.hash}`)).toMatchObject({ revokedAt: NOW });
  });

  it("answers 404 for a key of another principal", async () => {
    const { caller, account } = anAccountServed();
    const stranger = aKeyOf(aServiceAccount({ organization: caller.organization }));
    serveTables(dynamo, { tenancy: [aWorkspaceItem(caller.organization, caller.workspace), aServiceAccountItem(account), ...stranger.items] }, { writes: true });

    const response = await invoke(revokeKey, revoking(account.id, stranger.record.keyId, caller));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("api_key_not_found");
  });
});

describe("PATCH /v1/service-accounts/{service_account_id}/keys/{key_id}", () => {
  const patching = (id: string, keyId: string, caller: Caller, body: unknown) =>
    aJsonEvent(body, { method: "PATCH", path: `${keysPath(id)}/${keyId}`, pathParameters: { service_account_id: id, key_id: keyId }, caller });
  const auditItems = () => dynamo.commandCalls(PutCommand).map((c) => c.args[0].input).filter((input) => input.TableName === process.env.TABLE_AUDIT).map((input) => input.Item);

  it("sets the limits given, clears those given as null, keeps the others, and records the change", async () => {
    let key: ReturnType<typeof aKeyOf> | undefined;
    const { caller, account, tables } = anAccountServed({}, (a) => (key = aKeyOf(a, { rateLimitPerMinute: 30, models: ["mistral-small-latest"] })).items);

    const response = await invoke(updateKey, patching(account.id, key!.record.keyId, caller, { tokens_per_minute: 5000, tokens_per_day: 200000, rate_limit_per_minute: null }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: key!.record.keyId, rate_limit_per_minute: null, tokens_per_minute: 5000, tokens_per_day: 200000, monthly_budget: null, models: ["mistral-small-latest"] });
    const stored = tables.items("tenancy").find((i) => i.pk === `KEY#${key!.record.hash}`)!;
    expect(stored).toMatchObject({ tokensPerMinute: 5000, tokensPerDay: 200000, models: ["mistral-small-latest"] });
    expect(stored).not.toHaveProperty("rateLimitPerMinute");
    expect(auditItems()).toMatchObject([
      {
        operation: "key.update",
        targets: [{ type: "api_key", id: key!.record.keyId }, { type: "service_account", id: account.id }],
        before: { rate_limit_per_minute: 30, tokens_per_minute: null },
        after: { rate_limit_per_minute: null, tokens_per_minute: 5000, tokens_per_day: 200000 },
      },
    ]);
  });

  it("starts a new monthly budget from what the key spent this month, from its day totals", async () => {
    let key: ReturnType<typeof aKeyOf> | undefined;
    const { caller, account, tables } = anAccountServed({}, (a) => (key = aKeyOf(a)).items);
    const day = (keyId: string, costMicros: number, date = "2026-03-01") => ({ workspace: account.workspace, sk: `DAY#${date}#mistral-small-latest#${keyId}`, day: date, model: "mistral-small-latest", keyId, requests: 1, promptTokens: 1, completionTokens: 1, costMicros });
    tables.put("usage", day(key!.record.keyId, 1_250_000));
    tables.put("usage", day("another-key", 9_000_000));
    tables.put("usage", day(key!.record.keyId, 7_000_000, "2026-02-28"));

    const response = await invoke(updateKey, patching(account.id, key!.record.keyId, caller, { monthly_budget: 20 }));

    expect(response.json.monthly_budget).toBe(20);
    expect(tables.items("usage").find((i) => i.sk === `KEYMONTH#2026-03#${key!.record.keyId}`)).toMatchObject({ spentMicros: 1_250_000 });
  });

  it("answers 422 for a body that changes nothing or a bad value, and changes nothing", async () => {
    let key: ReturnType<typeof aKeyOf> | undefined;
    const { caller, account } = anAccountServed({}, (a) => (key = aKeyOf(a)).items);

    for (const body of [{}, { tokens_per_minute: 0 }, { monthly_budget: -1 }, { expires_at: "2020-01-01T00:00:00Z" }, { colour: "red" }]) {
      expect((await invoke(updateKey, patching(account.id, key!.record.keyId, caller, body))).statusCode, JSON.stringify(body)).toBe(422);
    }
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("answers 404 for a revoked key and for a key of another principal", async () => {
    let revoked: ReturnType<typeof aKeyOf> | undefined;
    const { caller, account } = anAccountServed({}, (a) => (revoked = aKeyOf(a, { revokedAt: NOW })).items);
    const stranger = aKeyOf(aServiceAccount({ organization: caller.organization }));

    for (const keyId of [revoked!.record.keyId, stranger.record.keyId]) {
      const response = await invoke(updateKey, patching(account.id, keyId, caller, { tokens_per_minute: 10 }));
      expect(response.statusCode).toBe(404);
      expect(response.json.code).toBe("api_key_not_found");
    }
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});
