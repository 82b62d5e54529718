import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/list.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, agentHeadItem, anAgentHead, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
/** a0 is the oldest. */
const heads = Array.from({ length: 5 }, (_, i) => anAgentHead({ workspace: caller.workspace, name: `a${i}`, createdAt: `2025-01-0${i + 1}T00:00:00.000Z` }));

beforeEach(() => {
  serveAgentsTable(dynamo, heads.map(agentHeadItem));
});

const list = (query: Record<string, string | string[]> = {}) => anEvent({ path: "/v1/agents", query, caller });
const names = (json: { name: string }[]) => json.map((a) => a.name);

describe("GET /v1/agents", () => {
  it("answers a bare array, newest first, from the workspace's byCreated index", async () => {
    const response = await invoke(handler, list());

    expect(response.statusCode).toBe(200);
    expect(names(response.json)).toEqual(["a4", "a3", "a2", "a1", "a0"]);
    expect(agentCalls(dynamo, QueryCommand)[0]).toMatchObject({
      IndexName: "byCreated",
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": `WS#${caller.workspace}` },
      ScanIndexForward: false,
    });
    expect(agentCalls(dynamo, QueryCommand)[0]!.FilterExpression).toBeUndefined();
  });

  it("skips page * page_size agents", async () => {
    expect(names((await invoke(handler, list({ page: "1", page_size: "2" }))).json)).toEqual(["a2", "a1"]);
    expect(names((await invoke(handler, list({ page: "2", page_size: "2" }))).json)).toEqual(["a0"]);
    expect((await invoke(handler, list({ page: "3", page_size: "2" }))).json).toEqual([]);
  });

  it("turns the filters into one FilterExpression", async () => {
    await invoke(handler, list({ deployment_chat: "true", sources: ["api", "playground"], name: "a1", id: heads[1]!.id, search: "A", metadata: JSON.stringify({ team: "x" }) }));

    const query = agentCalls(dynamo, QueryCommand)[0]!;
    expect(query.FilterExpression.split(" AND ")).toEqual([
      "#deployment_chat = :deployment_chat",
      "#source IN (:source0, :source1)",
      "#name = :name",
      "#id = :id",
      "(contains(#nameLower, :search) OR contains(#id, :searchRaw))",
      "#metadata.#m0 = :m0",
    ]);
    expect(query.ExpressionAttributeValues).toMatchObject({
      ":deployment_chat": true,
      ":source0": "api",
      ":source1": "playground",
      ":name": "a1",
      ":search": "a",
      ":searchRaw": "A",
      ":m0": "x",
    });
    expect(query.ExpressionAttributeNames).toMatchObject({ "#m0": "team" });
  });

  it("refuses bad paging, unknown sources and metadata that is not a JSON object with 422", async () => {
    for (const query of <Record<string, string>[]>[{ page_size: "0" }, { page_size: "1001" }, { page: "x" }, { sources: "web" }, { metadata: "{" }, { metadata: "3" }, { deployment_chat: "maybe" }]) {
      const response = await invoke(handler, list(query));
      expect(response.statusCode, JSON.stringify(query)).toBe(422);
    }
    expect(agentCalls(dynamo, QueryCommand)).toHaveLength(0);
  });
});
