import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/update.js";
import { MAX_WRITE_ATTEMPTS } from "../../../shared/services/registry/registry.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { freezeDate, mockDynamo, withoutRetryBackoff } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();
const NOW = freezeDate("2026-03-01T12:00:00.000Z");
// No backoff between retries: the retry count is what is under test.
withoutRetryBackoff();

const update = (id: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, { method: "PATCH", path: `/v2/prompts/${id}`, resource: "/v2/prompts/{prompt_id}", pathParameters: { prompt_id: id }, caller: who });

function stored(overrides: Partial<RegistryHead> = {}) {
  return aServedEntry(dynamo, caller, { revision: 4, title: "Old", description: "Old description", ...overrides }).head;
}

const updates = () => dynamo.commandCalls(UpdateCommand).map((c) => c.args[0].input);

describe("PATCH /v2/prompts/{prompt_id}", () => {
  it("answers 200 JSON with the updated Prompt at its latest version", async () => {
    const head = stored();

    const response = await invoke(handler, update(head.id, { title: "New" }));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toStrictEqual({
      id: head.id,
      name: head.name,
      definition: { content: "Hello {{name}}", variables: [{ name: "name" }] },
      version: 1,
      aliases: [],
      sharingScope: "private",
      createdAt: head.createdAt,
      updatedAt: NOW,
      latestVersion: 1,
      title: "New",
      description: "Old description",
    });
  });

  it("sets the title with its sort key and the modification time, conditioned on the revision read", async () => {
    const head = stored();

    await invoke(handler, update(head.id, { title: "New" }));

    expect(updates()).toStrictEqual([
      {
        TableName: REGISTRY_TABLE,
        Key: { pk: `prompt#${caller.workspace}`, sk: `HEAD#${head.id}` },
        UpdateExpression: "SET #revision = :revision, #updatedAt = :updatedAt, #modifiedKey = :modifiedKey, #title = :title, #titleKey = :titleKey",
        ConditionExpression: "#revision = :seen",
        ExpressionAttributeNames: { "#revision": "revision", "#updatedAt": "updatedAt", "#modifiedKey": "modifiedKey", "#title": "title", "#titleKey": "titleKey" },
        ExpressionAttributeValues: { ":seen": 4, ":revision": 5, ":updatedAt": NOW, ":modifiedKey": `${NOW}#${head.id}`, ":title": "New", ":titleKey": `new\u0001${head.id}` },
      },
    ]);
  });

  it("removes a field sent as null", async () => {
    const head = stored();

    const response = await invoke(handler, update(head.id, { title: null, description: null }));

    expect(updates()[0]!.UpdateExpression).toBe(
      "SET #revision = :revision, #updatedAt = :updatedAt, #modifiedKey = :modifiedKey, #titleKey = :titleKey REMOVE #title, #description",
    );
    expect(updates()[0]!.ExpressionAttributeValues![":titleKey"]).toBe(`\u0001${head.id}`);
    expect(response.json).not.toHaveProperty("title");
    expect(response.json).not.toHaveProperty("description");
  });

  it("shares with the workspace as writer by default, and removes the relation when made private", async () => {
    const head = stored();

    await invoke(handler, update(head.id, { sharingScope: "workspace" }));
    await invoke(handler, update(head.id, { sharingScope: "private" }));

    expect(updates()[0]!.ExpressionAttributeValues).toMatchObject({ ":sharingScope": "workspace", ":workspaceRelation": "writer" });
    expect(updates()[1]!.ExpressionAttributeValues).toMatchObject({ ":sharingScope": "private" });
    expect(updates()[1]!.UpdateExpression).toMatch(/REMOVE #workspaceRelation$/);
  });

  it("keeps the relation of a prompt already shared when none is given", async () => {
    const head = stored({ sharingScope: "workspace", workspaceRelation: "reader" });

    await invoke(handler, update(head.id, { sharingScope: "workspace" }));

    expect(updates()[0]!.ExpressionAttributeValues).toMatchObject({ ":workspaceRelation": "reader" });
  });

  it("writes nothing for an empty body, or for sharing_scope_unspecified", async () => {
    const head = stored();

    for (const body of [{}, { sharingScope: "sharing_scope_unspecified" }, { sharingScope: null }]) {
      const response = await invoke(handler, update(head.id, body));
      expect(response.statusCode).toBe(200);
      expect(response.json.updatedAt).toBe(head.updatedAt);
    }
    expect(updates()).toHaveLength(0);
  });

  it("reads again and retries when the head changed in between", async () => {
    const head = stored();
    dynamo.on(UpdateCommand).rejectsOnce(new ConditionalCheckFailedException({ message: "conditional", $metadata: {} })).resolves({});

    const response = await invoke(handler, update(head.id, { title: "New" }));

    expect(response.statusCode).toBe(200);
    expect(updates()).toHaveLength(2);
    expect(dynamo.commandCalls(GetCommand).filter((c) => String(c.args[0].input.Key!.sk).startsWith("HEAD#"))).toHaveLength(2);
  });

  it(`answers 409 after ${MAX_WRITE_ATTEMPTS} lost races`, async () => {
    const head = stored();
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: "conditional", $metadata: {} }));

    const response = await invoke(handler, update(head.id, { title: "New" }));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ type: "conflict_error", code: "prompt_write_conflict" });
    expect(updates()).toHaveLength(MAX_WRITE_ATTEMPTS);
  });

  it("lets a workspace member edit a prompt shared as writer, but not change its sharing", async () => {
    const head = stored({ owner: "creator", sharingScope: "workspace", workspaceRelation: "writer" });

    expect((await invoke(handler, update(head.id, { title: "Ours" }))).statusCode).toBe(200);
    const sharing = await invoke(handler, update(head.id, { sharingScope: "private" }));

    expect(sharing.statusCode).toBe(403);
    expect(sharing.json.code).toBe("prompt_owner_only");
    expect(updates()).toHaveLength(1);
  });

  it("answers 403 to a workspace member editing a prompt shared as reader", async () => {
    const head = stored({ owner: "creator", sharingScope: "workspace", workspaceRelation: "reader" });

    const response = await invoke(handler, update(head.id, { title: "Ours" }));

    expect(response.statusCode).toBe(403);
    expect(response.json).toMatchObject({ type: "permission_error", code: "prompt_read_only" });
    expect(updates()).toHaveLength(0);
  });

  it("answers 404 for a colleague's private prompt", async () => {
    const head = stored({ owner: "creator" });

    expect((await invoke(handler, update(head.id, { title: "x" }))).statusCode).toBe(404);
    expect(updates()).toHaveLength(0);
  });

  it("answers 422 for workspaceRelation unless sharingScope is workspace, and for other properties", async () => {
    for (const [body, loc] of [
      [{ workspaceRelation: "writer" }, ["body", "workspaceRelation"]],
      [{ sharingScope: "private", workspaceRelation: "reader" }, ["body", "workspaceRelation"]],
      [{ name: "renamed" }, ["body", "name"]],
      [{ sharingScope: "public" }, ["body", "sharingScope"]],
    ] as const) {
      const response = await invoke(handler, update("any", body));
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(response.json.detail[0].loc).toStrictEqual(loc);
    }
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, update("any", {}, null))).statusCode).toBe(401);
  });
});
