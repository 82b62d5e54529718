import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/create.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const create = (body: unknown, who: ReturnType<typeof aCaller> | null = caller) => aJsonEvent(body, { path: "/v2/skills", caller: who });
const writes = () => dynamo.commandCalls(TransactWriteCommand);

const definition = {
  description: "Writes changelogs",
  body: "Use the template.",
  assets: { "template.md": { textContent: "## {{version}}" }, "run.sh": { rawContent: "ZWNobyBoaQ==", isExecutable: true } },
};

describe("POST /v2/skills", () => {
  it("answers 200 JSON with the Skill at version 1, its definition as given", async () => {
    const event = create({ name: "changelog", definition, aliases: ["prod"], notes: "v1" });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: expect.any(String),
      name: "changelog",
      definition,
      version: 1,
      notes: "v1",
      aliases: ["prod"],
      sharingScope: "private",
      createdAt: expect.any(String),
      updatedAt: response.json.createdAt,
      latestVersion: 1,
    });
  });

  it("writes the head under the workspace's skill partition and version 1 under the skill's, only if new", async () => {
    const response = await invoke(handler, create({ name: "changelog", definition }));
    const { id } = response.json;

    const [head, version] = writes()[0]!.args[0].input.TransactItems!;
    expect(head!.Put).toMatchObject({
      TableName: REGISTRY_TABLE,
      ConditionExpression: "attribute_not_exists(sk)",
      Item: { pk: `skill#${caller.workspace}`, sk: `HEAD#${id}`, kind: "skill", owner: caller.principal, titleKey: `\u0001${id}`, aliases: {} },
    });
    expect(version!.Put).toMatchObject({
      ConditionExpression: "attribute_not_exists(sk)",
      Item: { pk: `skill#${caller.workspace}#${id}`, sk: "V#0000000001", version: 1, definition },
    });
  });

  it("answers 422 for a title (skills have none) and for an asset with both kinds of content", async () => {
    for (const [body, loc] of [
      [{ name: "s", definition: {}, title: "no" }, ["body", "title"]],
      [{ name: "s", definition: { assets: { a: { textContent: "x", rawContent: "eA==" } } } }, ["body", "definition", "assets", "a"]],
      [{ name: "s", definition: { content: "prompt" } }, ["body", "definition", "content"]],
    ] as const) {
      const response = await invoke(handler, create(body));
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(response.json.detail[0].loc.slice(0, loc.length)).toStrictEqual(loc);
    }
    expect(writes()).toHaveLength(0);
  });

  it("answers 413 for a definition larger than one version may store", async () => {
    const response = await invoke(handler, create({ name: "big", definition: { body: "x".repeat(360_000) } }));

    expect(response.statusCode).toBe(413);
    expect(response.json.code).toBe("definition_too_large");
    expect(writes()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, create({ name: "s", definition: {} }, null))).statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});
