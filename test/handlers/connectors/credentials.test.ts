import { beforeEach, describe, expect, it } from "vitest";
import { handler as createCredentials } from "../../../functions/connectors/create-credentials.js";
import { handler as deleteAll } from "../../../functions/connectors/delete-all-credentials.js";
import { handler as deleteOne } from "../../../functions/connectors/delete-credentials.js";
import { handler as listCredentials } from "../../../functions/connectors/list-credentials.js";
import { handler as updateCredentials } from "../../../functions/connectors/update-credentials.js";
import { open } from "../../../shared/store/connectors/secrets.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { aConnectionItem, aConnectorItems, aConnectorRecord } from "../../support/connector-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const stored = () => {
  const record = aConnectorRecord(caller);
  tables.put("connectors", ...aConnectorItems(record));
  return record;
};
const scoped = "/v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials";
const params = (id: string, scope = "user") => ({ connector_id_or_name: id, consumer_scope: scope });
const path = (id: string, scope = "user") => `/v1/connectors/${id}/${scope}/credentials`;
const credentialItems = () => tables.items("connectors").filter((i) => String(i.sk).startsWith("CRED#"));

describe("POST /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("seals the secret to the connector, scope, consumer and name; the item holds no plaintext", async () => {
    const record = stored();
    const response = await invoke(createCredentials, aJsonEvent({ name: "work", credentials: { bearer_token: "tok-123" } }, { path: path(record.id), resource: scoped, pathParameters: params(record.id), caller }));

    expect(response.statusCode).toBe(200);
    const [item] = credentialItems();
    expect(item).toMatchObject({ sk: `CRED#user#${caller.principal}#work`, authType: "bearer", isDefault: true, secret: expect.stringMatching(/^v1\./) });
    expect(JSON.stringify(item)).not.toContain("tok-123");
    const context = { organization: caller.organization, connector: record.id, scope: "user", consumer: caller.principal, credentials: "work" };
    expect(JSON.parse(await open(item!.secret as string, context))).toEqual({ bearerToken: "tok-123" });
    await expect(open(item!.secret as string, { ...context, credentials: "other" })).rejects.toThrow();
  });

  it("answers 409 for a name the consumer already has, 400 without a secret", async () => {
    const record = stored();
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: caller.principal, name: "work", authType: "bearer" }));
    expect((await invoke(createCredentials, aJsonEvent({ name: "work", credentials: { bearer_token: "x" } }, { path: path(record.id), resource: scoped, pathParameters: params(record.id), caller }))).statusCode).toBe(409);
    expect((await invoke(createCredentials, aJsonEvent({ name: "other" }, { path: path(record.id), resource: scoped, pathParameters: params(record.id), caller }))).statusCode).toBe(400);
  });
});

describe("PATCH /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("replaces the consumer's credentials and moves the default; 404 for unknown ones", async () => {
    const record = stored();
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: caller.principal, name: "a", authType: "bearer", isDefault: true }));
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: caller.principal, name: "b", authType: "bearer", isDefault: false }));
    const patch = (body: unknown) => invoke(updateCredentials, aJsonEvent(body, { method: "PATCH", path: path(record.id), resource: scoped, pathParameters: params(record.id), caller }));
    expect((await patch({ name: "b", is_default: true, credentials: { bearer_token: "new" } })).statusCode).toBe(200);
    expect(Object.fromEntries(credentialItems().map((i) => [i.name, i.isDefault]))).toEqual({ a: false, b: true });
    expect((await patch({ name: "c", credentials: { bearer_token: "new" } })).statusCode).toBe(404);
  });
});

describe("GET /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("lists the scope's credentials without secrets", async () => {
    const record = stored();
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "workspace", consumer: caller.workspace, name: "team", authType: "bearer", isDefault: true, secret: "v1.sealed" }));
    const response = await invoke(listCredentials, anEvent({ path: path(record.id, "workspace"), resource: scoped, pathParameters: params(record.id, "workspace"), caller }));
    expect(response.json).toEqual({
      credentials: [{ name: "team", title: null, authentication_type: "bearer", scope: "workspace", status: { status_type: "valid", last_checked_at: "2026-01-02T03:04:05.000Z" }, is_default: true, creator_id: null }],
      connector_preset_credentials_for_auth: [],
    });
  });
});

describe("DELETE /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials/{credentials_name}", () => {
  it("deletes the named credentials; 404 when the consumer has none of that name", async () => {
    const record = stored();
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: caller.principal, name: "a", authType: "bearer" }));
    const deleting = (name: string) =>
      invoke(deleteOne, anEvent({ method: "DELETE", path: `${path(record.id)}/${name}`, resource: `${scoped}/{credentials_name}`, pathParameters: { ...params(record.id), credentials_name: name }, caller }));
    expect((await deleting("a")).statusCode).toBe(200);
    expect(credentialItems()).toEqual([]);
    expect((await deleting("a")).statusCode).toBe(404);
  });
});

describe("DELETE /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("deletes all of the consumer's credentials", async () => {
    const record = stored();
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: caller.principal, name: "a", authType: "bearer" }));
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: "someone-else", name: "b", authType: "bearer" }));
    const response = await invoke(deleteAll, anEvent({ method: "DELETE", path: path(record.id), resource: scoped, pathParameters: params(record.id), caller }));
    expect(response.statusCode).toBe(200);
    expect(credentialItems().map((i) => i.name)).toEqual(["b"]);
  });
});
