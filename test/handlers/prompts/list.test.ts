import { BatchGetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/list.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aRegistryHead, anEntry, REGISTRY_TABLE, serveRegistry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();
const colleague = aCaller({ workspace: caller.workspace, organization: caller.organization });

const list = (query: Record<string, string | string[]> = {}, who: ReturnType<typeof aCaller> | null = caller) => anEvent({ path: "/v2/prompts", query, caller: who });

/** `count` of the caller's prompts, created a minute apart (index i is the i-th oldest), and their items served. */
function promptsOf(count: number, overrides: (i: number) => Partial<RegistryHead> = () => ({})) {
  const entries = Array.from({ length: count }, (_, i) =>
    anEntry(
      aRegistryHead({
        workspace: caller.workspace,
        owner: caller.principal,
        name: `prompt-${String.fromCharCode(97 + i)}`,
        createdAt: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        updatedAt: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        ...overrides(i),
      }),
    ),
  );
  serveRegistry(dynamo, entries.flatMap((e) => e.items));
  return entries.map((e) => e.head);
}

const queries = () => dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);
const ids = (data: { id: string }[]) => data.map((p) => p.id);

describe("GET /v2/prompts", () => {
  it("answers 200 JSON {data} of Prompts at their latest version, newest first, without a token at the end", async () => {
    const [older, newer] = promptsOf(2, (i) => ({ latestVersion: i + 1, aliases: (i ? { prod: 2 } : {}) as Record<string, number>, title: i ? "Newer" : null }));
    const event = list();

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      data: [
        {
          id: newer!.id,
          name: newer!.name,
          definition: { content: "Hello {{name}}", variables: [{ name: "name" }] },
          version: 2,
          aliases: ["prod"],
          sharingScope: "private",
          createdAt: newer!.createdAt,
          updatedAt: newer!.updatedAt,
          latestVersion: 2,
          title: "Newer",
        },
        expect.objectContaining({ id: older!.id, version: 1, aliases: [] }),
      ],
    });
  });

  it("queries the caller's prompt partition on byCreated, descending, admitting shared prompts and the caller's own", async () => {
    promptsOf(0);

    await invoke(handler, list());

    expect(queries()).toStrictEqual([
      {
        TableName: REGISTRY_TABLE,
        IndexName: "byCreated",
        KeyConditionExpression: "#pk = :pk",
        FilterExpression: "(#sharingScope = :workspace OR #owner = :me)",
        ExpressionAttributeNames: { "#pk": "pk", "#sharingScope": "sharingScope", "#owner": "owner" },
        ExpressionAttributeValues: { ":pk": `prompt#${caller.workspace}`, ":workspace": "workspace", ":me": caller.principal },
        ScanIndexForward: false,
        ExclusiveStartKey: undefined,
        Limit: 51,
      },
    ]);
  });

  it.each([
    [{ sort_by: "name" }, "byName", true],
    [{ sort_by: "title" }, "byTitle", true],
    [{ sort_by: "last_modified_at" }, "byModified", false],
    [{ sort_by: "created_at", sort_direction: "asc" }, "byCreated", true],
    [{ "sort.field": "list_sort_field_title", "sort.direction": "list_sort_direction_desc" }, "byTitle", false],
    [{ "sort.field": "list_sort_field_last_modified_at" }, "byModified", false],
    [{ "sort.field": "list_sort_field_unspecified" }, "byCreated", false],
  ])("sorts %j on %s, ascending %s", async (query, index, ascending) => {
    promptsOf(0);

    await invoke(handler, list(query));

    expect(queries()[0]).toMatchObject({ IndexName: index, ScanIndexForward: ascending });
  });

  it("reads the page's versions in one BatchGet from each prompt's partition", async () => {
    const heads = promptsOf(3, (i) => ({ latestVersion: i + 1 }));

    await invoke(handler, list({ pageSize: "2" }));

    const reads = dynamo.commandCalls(BatchGetCommand);
    expect(reads).toHaveLength(1);
    expect(reads[0]!.args[0].input.RequestItems![REGISTRY_TABLE]!.Keys).toStrictEqual([
      { pk: `prompt#${caller.workspace}#${heads[2]!.id}`, sk: "V#0000000003" },
      { pk: `prompt#${caller.workspace}#${heads[1]!.id}`, sk: "V#0000000002" },
    ]);
  });

  it("returns pageSize prompts and a token that resumes after the last one", async () => {
    const heads = promptsOf(5).reverse();

    const first = await invoke(handler, list({ pageSize: "2" }));
    const second = await invoke(handler, list({ pageSize: "2", pageToken: first.json.nextPageToken }));
    const third = await invoke(handler, list({ pageSize: "2", pageToken: second.json.nextPageToken }));

    expect(ids(first.json.data)).toStrictEqual(ids(heads.slice(0, 2)));
    expect(ids(second.json.data)).toStrictEqual(ids(heads.slice(2, 4)));
    expect(third.json).toStrictEqual({ data: [expect.objectContaining({ id: heads[4]!.id })] });
    expect(queries()[1]!.ExclusiveStartKey).toStrictEqual({ pk: `prompt#${caller.workspace}`, sk: `HEAD#${heads[1]!.id}`, createdKey: `${heads[1]!.createdAt}#${heads[1]!.id}` });
  });

  it("keeps reading, further each time, while the visibility filter leaves the page short", async () => {
    // Nine colleague's private prompts between the caller's two.
    const heads = promptsOf(11, (i) => (i === 0 || i === 10 ? {} : { owner: colleague.principal }));

    const response = await invoke(handler, list({ pageSize: "2" }));

    expect(ids(response.json.data)).toStrictEqual([heads[10]!.id, heads[0]!.id]);
    expect(queries().map((q) => q.Limit)).toStrictEqual([3, 12]);
    expect(response.json).not.toHaveProperty("nextPageToken");
  });

  it("lists a colleague's prompt shared with the workspace", async () => {
    const [shared] = promptsOf(2, (i) => ({ owner: colleague.principal, sharingScope: i ? "private" : "workspace", workspaceRelation: i ? null : "writer" }));

    const response = await invoke(handler, list());

    expect(ids(response.json.data)).toStrictEqual([shared!.id]);
    expect(response.json.data[0].sharingScope).toBe("workspace");
  });

  it("filters by alias and answers each prompt at the version the alias points to", async () => {
    const [, tagged] = promptsOf(2, (i) => ({ latestVersion: 3, aliases: (i ? { prod: 2 } : { beta: 3 }) as Record<string, number> }));

    const response = await invoke(handler, list({ alias: "prod" }));

    expect(queries()[0]!.FilterExpression).toBe("(#sharingScope = :workspace OR #owner = :me) AND attribute_exists(#aliases.#alias)");
    expect(queries()[0]!.ExpressionAttributeNames).toMatchObject({ "#aliases": "aliases", "#alias": "prod" });
    expect(response.json.data).toStrictEqual([expect.objectContaining({ id: tagged!.id, version: 2, latestVersion: 3, aliases: ["prod"] })]);
    expect(dynamo.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems![REGISTRY_TABLE]!.Keys).toStrictEqual([
      { pk: `prompt#${caller.workspace}#${tagged!.id}`, sk: "V#0000000002" },
    ]);
  });

  it("projects onto fields and reads no versions when no version field is asked for", async () => {
    const [prompt] = promptsOf(1, () => ({ title: "T" }));

    const response = await invoke(handler, list({ fields: ["id", "title", "latest_version"] }));

    expect(response.json.data).toStrictEqual([{ id: prompt!.id, title: "T", latestVersion: 1 }]);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it("leaves out a prompt whose version vanished between the two reads (deleted meanwhile)", async () => {
    const entries = [0, 1].map((i) => anEntry(aRegistryHead({ workspace: caller.workspace, owner: caller.principal, createdAt: `2025-01-0${i + 1}T00:00:00.000Z` })));
    serveRegistry(dynamo, [...entries[0]!.items, entries[1]!.items[0]!]);

    const response = await invoke(handler, list());

    expect(ids(response.json.data)).toStrictEqual([entries[0]!.head.id]);
  });

  it("answers 400 for a token that is not ours, and for a token of another sort order, without querying", async () => {
    promptsOf(3);
    const token = (await invoke(handler, list({ pageSize: "1" }))).json.nextPageToken;
    dynamo.resetHistory();

    const garbage = await invoke(handler, list({ pageToken: "eyJub3QiOiJvdXJzIn0" }));
    const otherSort = await invoke(handler, list({ pageToken: token, sort_by: "name" }));

    for (const response of [garbage, otherSort]) {
      expect(response.statusCode).toBe(422);
      expect(response.json.detail).toEqual([{ loc: ["query", "pageToken"], msg: expect.stringMatching(/^Invalid page token/), type: "value_error" }]);
    }
    expect(queries()).toHaveLength(0);
  });

  it("answers 422 for a pageSize over 100, an unknown sort field or field", async () => {
    for (const [query, loc] of [
      [{ pageSize: "101" }, ["query", "pageSize"]],
      [{ sort_by: "size" }, ["query", "sort_by"]],
      [{ "sort.direction": "sideways" }, ["query", "sort.direction"]],
      [{ fields: ["id", "owner"] }, ["query", "fields", 1]],
    ] as const) {
      const response = await invoke(handler, list(query as Record<string, string | string[]>));
      expect(response.statusCode, JSON.stringify(query)).toBe(422);
      expect(response.json.detail[0].loc).toStrictEqual(loc);
    }
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, list({}, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});
