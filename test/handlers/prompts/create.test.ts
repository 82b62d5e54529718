import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/create.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const create = (body: unknown, who: ReturnType<typeof aCaller> | null = caller) => aJsonEvent(body, { path: "/v2/prompts", caller: who });
const writes = () => dynamo.commandCalls(TransactWriteCommand);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("POST /v2/prompts", () => {
  it("answers 200 JSON with the Prompt at version 1", async () => {
    const event = create({ name: "welcome", definition: { content: "Hi {{name}}" }, title: "Welcome", aliases: ["prod"] });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "welcome",
      definition: { content: "Hi {{name}}", variables: [{ name: "name" }] },
      version: 1,
      aliases: ["prod"],
      sharingScope: "private",
      createdAt: expect.stringMatching(ISO),
      updatedAt: response.json.createdAt,
      latestVersion: 1,
      title: "Welcome",
    });
  });

  it("puts the head in the caller's workspace partition and version 1 in the prompt's own, together, each only if new", async () => {
    const response = await invoke(handler, create({ name: "Welcome", definition: { content: "Hi" }, title: "Greeting", notes: "first", aliases: ["prod"] }));
    const { id, createdAt } = response.json;

    expect(writes()).toHaveLength(1);
    const [head, version] = writes()[0]!.args[0].input.TransactItems!;
    expect(head!.Put).toStrictEqual({
      TableName: REGISTRY_TABLE,
      ConditionExpression: "attribute_not_exists(sk)",
      Item: {
        pk: `prompt#${caller.workspace}`,
        sk: `HEAD#${id}`,
        kind: "prompt",
        workspace: caller.workspace,
        organization: caller.organization,
        id,
        name: "Welcome",
        title: "Greeting",
        owner: caller.principal,
        sharingScope: "private",
        createdAt,
        updatedAt: createdAt,
        latestVersion: 1,
        latestHash: expect.any(String),
        aliases: { prod: 1 },
        revision: 1,
        createdKey: `${createdAt}#${id}`,
        modifiedKey: `${createdAt}#${id}`,
        nameKey: `welcome\u0001${id}`,
        titleKey: `greeting\u0001${id}`,
      },
    });
    expect(version!.Put).toStrictEqual({
      TableName: REGISTRY_TABLE,
      ConditionExpression: "attribute_not_exists(sk)",
      Item: {
        pk: `prompt#${caller.workspace}#${id}`,
        sk: "V#0000000001",
        id,
        version: 1,
        definition: { content: "Hi", variables: [] },
        notes: "first",
        createdAt,
        createdBy: caller.principal,
        hash: head!.Put!.Item!.latestHash,
      },
    });
  });

  it("stores no attribute for a null title, description or notes, and an empty title key", async () => {
    const response = await invoke(handler, create({ name: "n", definition: { content: "x" }, title: null, description: null, notes: null }));

    const [head, version] = writes()[0]!.args[0].input.TransactItems!;
    for (const field of ["title", "description", "workspaceRelation"]) expect(head!.Put!.Item).not.toHaveProperty(field);
    expect(head!.Put!.Item!.titleKey).toBe(`\u0001${response.json.id}`);
    expect(version!.Put!.Item).not.toHaveProperty("notes");
    for (const field of ["title", "description", "notes"]) expect(response.json).not.toHaveProperty(field);
  });

  it("shares with the workspace as writer unless told reader", async () => {
    await invoke(handler, create({ name: "a", definition: { content: "x" }, sharingScope: "workspace" }));
    await invoke(handler, create({ name: "b", definition: { content: "x" }, sharingScope: "workspace", workspaceRelation: "reader" }));

    const relations = writes().map((w) => w.args[0].input.TransactItems![0]!.Put!.Item!.workspaceRelation);
    expect(relations).toStrictEqual(["writer", "reader"]);
  });

  it("hashes equal definitions equally, whatever the key order", async () => {
    await invoke(handler, create({ name: "a", definition: { content: "{{x}}", variables: [{ name: "x" }] }, notes: "n" }));
    await invoke(handler, create({ name: "b", definition: { variables: [{ name: "x" }], content: "{{x}}" }, notes: "n" }));
    await invoke(handler, create({ name: "c", definition: { content: "{{x}}" }, notes: "other" }));

    const [a, b, c] = writes().map((w) => w.args[0].input.TransactItems![0]!.Put!.Item!.latestHash);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it("answers 422 for variables that do not match the placeholders, writing nothing", async () => {
    const response = await invoke(handler, create({ name: "n", definition: { content: "{{a}}", variables: [{ name: "b" }] } }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "definition", "variables"], msg: expect.stringContaining("not declared: a"), type: "value_error" }]);
    expect(writes()).toHaveLength(0);
  });

  it("answers 422 extra_forbidden for an unknown property", async () => {
    const response = await invoke(handler, create({ name: "n", definition: { content: "x" }, model: "m" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "model"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
    expect(writes()).toHaveLength(0);
  });

  it("answers 422 for workspaceRelation without sharingScope workspace", async () => {
    const response = await invoke(handler, create({ name: "n", definition: { content: "x" }, sharingScope: "private", workspaceRelation: "writer" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "workspaceRelation"]);
  });

  it("answers 422 for a name with control characters, which would break the sort keys", async () => {
    const response = await invoke(handler, create({ name: "a\u0001b", definition: { content: "x" } }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "name"]);
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, create({ name: "n", definition: { content: "x" } }, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});
