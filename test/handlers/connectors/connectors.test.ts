import { randomUUID } from "node:crypto";
import { QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as create } from "../../../functions/connectors/create.js";
import { handler as get } from "../../../functions/connectors/get.js";
import { handler as list } from "../../../functions/connectors/list.js";
import { handler as remove } from "../../../functions/connectors/delete.js";
import { handler as update } from "../../../functions/connectors/update.js";
import { handler as authMethods } from "../../../functions/connectors/authentication-methods.js";
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
const stored = (overrides: Parameters<typeof aConnectorRecord>[1] = {}, who = caller) => {
  const record = aConnectorRecord(who, overrides);
  tables.put("connectors", ...aConnectorItems(record));
  return record;
};
const connectorItems = () => tables.items("connectors").filter((i) => String(i.sk).startsWith("C#"));

describe("POST /v1/connectors", () => {
  const post = (body: unknown, who: ReturnType<typeof aCaller> | null = caller) => aJsonEvent(body, { path: "/v1/connectors", caller: who });

  it("stores the connector and its name claim in one transaction and answers 201", async () => {
    const response = await invoke(create, post({ name: "docs", description: "Docs", server: "https://mcp.example.com/mcp", headers: { "x-key": "s3cret" } }));

    expect(response.statusCode).toBe(201);
    expect(response.json).toMatchObject({ name: "docs", protocol: "mcp", supports_mcp: true, visibility: "private", owner_type: "user", owner_id: caller.principal });
    const [transaction] = dynamo.commandCalls(TransactWriteCommand);
    expect(transaction!.args[0].input.TransactItems!.map((t) => t.Put!.Item!.sk)).toEqual([`C#${response.json.id}`, "NAME#docs"]);
    const [item] = connectorItems();
    expect(item).toMatchObject({ pk: `ORG#${caller.organization}`, headerNames: ["x-key"], secrets: expect.stringMatching(/^v1\./) });
    expect(JSON.stringify(item)).not.toContain("s3cret");
    expect(response.body).not.toContain("s3cret");
  });

  it("answers 409 when the name is taken in the organization, writing nothing more", async () => {
    stored({ name: "docs" });
    const response = await invoke(create, post({ name: "docs", description: "Docs", server: "https://mcp.example.com/mcp" }));
    expect(response.statusCode).toBe(409);
    expect(connectorItems()).toHaveLength(1);
  });

  it("answers 422 for a server that is not an http(s) URL, and 401 without a caller", async () => {
    expect((await invoke(create, post({ name: "x", description: "d", server: "file:///etc/passwd" }))).statusCode).toBe(422);
    expect((await invoke(create, post({ name: "x", description: "d", server: "https://a.example" }, null))).statusCode).toBe(401);
  });
});

describe("GET /v1/connectors", () => {
  const listing = (query: Record<string, string> = {}, who = caller) => anEvent({ path: "/v1/connectors", query, caller: who });

  it("queries the organization's partition on the byCreated index, consistently, and shows what the caller may see", async () => {
    const mine = stored();
    stored({}, { ...caller, principal: randomUUID() });
    const shared = stored({ visibility: "shared_org" }, { ...caller, workspace: randomUUID(), principal: randomUUID() });

    const response = await invoke(list, listing());

    expect(response.statusCode).toBe(200);
    expect(response.json.items.map((c: any) => c.id).sort()).toEqual([mine.id, shared.id].sort());
    expect(response.json.pagination).toEqual({ next_cursor: null, page_size: 100 });
    const [query] = dynamo.commandCalls(QueryCommand);
    expect(query!.args[0].input).toMatchObject({ IndexName: "byCreated", ConsistentRead: true, ExpressionAttributeValues: { ":pk": `ORG#${caller.organization}` } });
  });

  it("hands out a cursor that continues after the last connector shown", async () => {
    const records = [0, 1, 2].map((i) => stored({ createdAt: `2026-01-0${i + 1}T00:00:00.000Z` }));
    const first = await invoke(list, listing({ page_size: "2" }));
    expect(first.json.items.map((c: any) => c.id)).toEqual([records[0]!.id, records[1]!.id]);
    const second = await invoke(list, listing({ page_size: "2", cursor: first.json.pagination.next_cursor }));
    expect(second.json.items.map((c: any) => c.id)).toEqual([records[2]!.id]);
    expect(second.json.pagination.next_cursor).toBeNull();
  });

  it("answers 422 for a cursor it did not issue", async () => {
    expect((await invoke(list, listing({ cursor: "nope" }))).statusCode).toBe(422);
  });
});

describe("GET /v1/connectors/{connector_id_or_name}", () => {
  const getting = (ref: string, who = caller) => anEvent({ path: `/v1/connectors/${ref}`, resource: "/v1/connectors/{connector_id_or_name}", pathParameters: { connector_id_or_name: ref }, caller: who });

  it("reads by id, or through the name claim", async () => {
    const record = stored({ name: "by-name" });
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "activation", scope: "user", consumer: caller.principal }));
    expect((await invoke(get, getting(record.id))).json).toMatchObject({ id: record.id, active: true });
    expect((await invoke(get, getting("by-name"))).json.id).toBe(record.id);
  });

  it("answers 404 for another organization's connector and for another member's private one", async () => {
    const theirs = stored({}, aCaller());
    const colleague = stored({}, { ...caller, principal: randomUUID() });
    for (const id of [theirs.id, colleague.id, randomUUID()]) {
      const response = await invoke(get, getting(id));
      expect(response.statusCode).toBe(404);
      expect(response.json.code).toBe("connector_not_found");
    }
  });
});

describe("PATCH /v1/connectors/{connector_id}", () => {
  const patching = (id: string, body: unknown, who = caller) => aJsonEvent(body, { method: "PATCH", path: `/v1/connectors/${id}`, resource: "/v1/connectors/{connector_id}", pathParameters: { connector_id: id }, caller: who });

  it("writes the change on condition of the revision it read, moving the name claim", async () => {
    const record = stored({ name: "old" });
    const response = await invoke(update, patching(record.id, { name: "new", description: "changed" }));
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ name: "new", description: "changed" });
    const [transaction] = dynamo.commandCalls(TransactWriteCommand);
    expect(transaction!.args[0].input.TransactItems![0]!.Put!.ConditionExpression).toBe("revision = :revision");
    expect(tables.items("connectors").map((i) => i.sk)).toEqual(expect.arrayContaining(["NAME#new", `C#${record.id}`]));
    expect(tables.items("connectors").map((i) => i.sk)).not.toContain("NAME#old");
  });

  it("answers 403 for a member who is not the creator", async () => {
    const record = stored({ visibility: "shared_workspace" }, { ...caller, principal: randomUUID() });
    expect((await invoke(update, patching(record.id, { description: "x" }))).statusCode).toBe(403);
  });
});

describe("DELETE /v1/connectors/{connector_id}", () => {
  it("deletes the connector, its name claim and its connections", async () => {
    const record = stored();
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "activation", scope: "user", consumer: caller.principal }));
    const response = await invoke(remove, anEvent({ method: "DELETE", path: `/v1/connectors/${record.id}`, resource: "/v1/connectors/{connector_id}", pathParameters: { connector_id: record.id }, caller }));
    expect(response.statusCode).toBe(200);
    expect(tables.items("connectors")).toEqual([]);
  });
});

describe("GET /v1/connectors/{connector_id_or_name}/authentication_methods", () => {
  it("answers the connector's methods, with whether default credentials exist", async () => {
    const record = stored({ authMethods: ["bearer"] });
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: caller.principal, name: "a", authType: "bearer", isDefault: true }));
    const response = await invoke(authMethods, anEvent({ path: `/v1/connectors/${record.id}/authentication_methods`, resource: "/v1/connectors/{connector_id_or_name}/authentication_methods", pathParameters: { connector_id_or_name: record.id }, caller }));
    expect(response.json).toEqual([{ method_type: "bearer", headers: [{ name: "Authorization", is_required: true, is_secret: true }], global_headers: {}, has_default_credentials: true, oauth2_server_metadata: null }]);
  });
});
