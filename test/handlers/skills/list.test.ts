import { BatchGetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/list.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aRegistryHead, anEntry, REGISTRY_TABLE, serveRegistry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const list = (query: Record<string, string | string[]> = {}, who: ReturnType<typeof aCaller> | null = caller) => anEvent({ path: "/v2/skills", query, caller: who });

function skillsOf(names: string[]) {
  const entries = names.map((name, i) =>
    anEntry(aRegistryHead({ kind: "skill", workspace: caller.workspace, owner: caller.principal, name, createdAt: `2025-01-0${i + 1}T00:00:00.000Z` }), [
      { definition: { body: name } },
    ]),
  );
  serveRegistry(dynamo, entries.flatMap((e) => e.items));
  return entries.map((e) => e.head);
}

const queries = () => dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);

describe("GET /v2/skills", () => {
  it("answers 200 JSON {data} of Skills, newest first, without title or description", async () => {
    const [first, second] = skillsOf(["a", "b"]);

    const response = await invoke(handler, list());

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      data: [second, first].map((head) => ({
        id: head!.id,
        name: head!.name,
        definition: { body: head!.name },
        version: 1,
        aliases: [],
        sharingScope: "private",
        createdAt: head!.createdAt,
        updatedAt: head!.updatedAt,
        latestVersion: 1,
      })),
    });
  });

  it("queries the workspace's skill partition, never its prompts", async () => {
    skillsOf([]);

    await invoke(handler, list());

    expect(queries()[0]).toMatchObject({ TableName: REGISTRY_TABLE, IndexName: "byCreated", ExpressionAttributeValues: { ":pk": `skill#${caller.workspace}` } });
  });

  it("takes the same paging and sorting parameters as the prompt list", async () => {
    const heads = skillsOf(["c", "a", "b"]);

    const first = await invoke(handler, list({ pageSize: "2", "sort.field": "list_sort_field_name" }));
    const second = await invoke(handler, list({ pageSize: "2", sort_by: "name", pageToken: first.json.nextPageToken }));

    expect(queries()[0]).toMatchObject({ IndexName: "byName", ScanIndexForward: true, Limit: 3 });
    expect([...first.json.data, ...second.json.data].map((s: { name: string }) => s.name)).toStrictEqual(["a", "b", "c"]);
    expect(second.json.nextPageToken).toBeUndefined();
    expect(dynamo.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems![REGISTRY_TABLE]!.Keys![0]).toStrictEqual({
      pk: `skill#${caller.workspace}#${heads[1]!.id}`,
      sk: "V#0000000001",
    });
  });

  it("answers 422 for a prompt-only field in the projection", async () => {
    const response = await invoke(handler, list({ fields: ["title"] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["query", "fields", 0]);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, list({}, null))).statusCode).toBe(401);
  });
});
