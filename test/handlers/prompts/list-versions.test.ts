import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/list-versions.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aRegistryVersion, aVersionItem, REGISTRY_TABLE, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const listVersions = (id: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v2/prompts/${id}/versions`, resource: "/v2/prompts/{prompt_id}/versions", pathParameters: { prompt_id: id }, caller: who });

function stored(overrides: Partial<RegistryHead> = {}) {
  return aServedEntry(dynamo, caller, { latestVersion: 2, aliases: { prod: 2, stable: 2, old: 1 }, ...overrides }, [
    { createdAt: "2025-01-01T00:00:00.000Z", notes: "first" },
    { createdAt: "2025-01-02T00:00:00.000Z", definition: { content: "v2", variables: [] } },
  ]);
}

describe("GET /v2/prompts/{prompt_id}/versions", () => {
  it("answers 200 JSON {data} of PromptVersions, oldest first, with the aliases on each", async () => {
    const { head } = stored();
    const event = listVersions(head.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      data: [
        { version: 1, definition: { content: "Hello {{name}}", variables: [{ name: "name" }] }, notes: "first", aliases: ["old"], createdAt: "2025-01-01T00:00:00.000Z" },
        { version: 2, definition: { content: "v2", variables: [] }, aliases: ["prod", "stable"], createdAt: "2025-01-02T00:00:00.000Z" },
      ],
    });
  });

  it("queries the prompt's own partition, strongly consistent", async () => {
    const { head } = stored();

    await invoke(handler, listVersions(head.id));

    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).toStrictEqual({
      TableName: REGISTRY_TABLE,
      KeyConditionExpression: "#pk = :pk",
      ExpressionAttributeNames: { "#pk": "pk" },
      ExpressionAttributeValues: { ":pk": `prompt#${caller.workspace}#${head.id}` },
      ConsistentRead: true,
      ExclusiveStartKey: undefined,
    });
  });

  it("leaves out a version committed after the head was read", async () => {
    const { head, items } = stored();
    items.push(aVersionItem(head, aRegistryVersion({ id: head.id, version: 3 })));

    const response = await invoke(handler, listVersions(head.id));

    expect(response.json.data.map((v: { version: number }) => v.version)).toStrictEqual([1, 2]);
  });

  it("answers 404 for a colleague's private prompt, reading no versions", async () => {
    const { head } = stored({ owner: "creator" });

    const response = await invoke(handler, listVersions(head.id));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("prompt_not_found");
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, listVersions("any", null))).statusCode).toBe(401);
  });
});
