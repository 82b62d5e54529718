import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/list-pages.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, agentHeadItem, anAgentHead, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const heads = Array.from({ length: 5 }, (_, i) => anAgentHead({ workspace: caller.workspace, name: `a${i}`, createdAt: `2025-01-0${i + 1}T00:00:00.000Z` }));

beforeEach(() => {
  serveAgentsTable(dynamo, heads.map(agentHeadItem));
});

const listPages = (query: Record<string, string> = {}, who = caller) => anEvent({ path: "/v1/agents/pages", query, caller: who });
const names = (json: { data: { name: string }[] }) => json.data.map((a) => a.name);

describe("GET /v1/agents/pages", () => {
  it("answers {object, data, next_page_token}, newest first, asking DynamoDB for one more than the page", async () => {
    const response = await invoke(handler, listPages({ page_size: "2" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ object: "list", next_page_token: expect.any(String) });
    expect(names(response.json)).toEqual(["a4", "a3"]);
    expect(agentCalls(dynamo, QueryCommand)[0]).toMatchObject({ IndexName: "byCreated", ScanIndexForward: false, Limit: 3 });
  });

  it("encodes the last served agent's index key as an opaque base64url token, and resumes from it", async () => {
    const first = (await invoke(handler, listPages({ page_size: "2" }))).json;
    const key = JSON.parse(Buffer.from(first.next_page_token, "base64url").toString());
    expect(key).toEqual({ pk: `WS#${caller.workspace}`, sk: `AGENT#${heads[3]!.id}`, createdKey: expect.stringMatching(/^\d{15}#/) });

    const second = (await invoke(handler, listPages({ page_size: "2", page_token: first.next_page_token }))).json;
    expect(names(second)).toEqual(["a2", "a1"]);
    expect(agentCalls(dynamo, QueryCommand).at(-1)!.ExclusiveStartKey).toEqual(key);

    const last = (await invoke(handler, listPages({ page_size: "2", page_token: second.next_page_token }))).json;
    expect(names(last)).toEqual(["a0"]);
    expect(last.next_page_token).toBeNull();
  });

  it("answers a null token when everything fit, 20 per page by default", async () => {
    const response = await invoke(handler, listPages());
    expect(names(response.json)).toHaveLength(5);
    expect(response.json.next_page_token).toBeNull();
    expect(agentCalls(dynamo, QueryCommand)[0]!.Limit).toBe(21);
  });

  it("refuses malformed tokens and another workspace's with 422, before any query", async () => {
    const theirs = Buffer.from(JSON.stringify({ pk: "WS#other", sk: `AGENT#${heads[0]!.id}`, createdKey: `001735689600000#${heads[0]!.id}` })).toString("base64url");
    const extra = Buffer.from(JSON.stringify({ pk: `WS#${caller.workspace}`, sk: `AGENT#${heads[0]!.id}`, createdKey: `001735689600000#${heads[0]!.id}`, x: 1 })).toString("base64url");
    for (const page_token of ["%%%", "bm90IGpzb24", Buffer.from("null").toString("base64url"), theirs, extra]) {
      const response = await invoke(handler, listPages({ page_token }));
      expect(response.statusCode, page_token).toBe(422);
      expect(response.json.detail).toEqual([{ loc: ["query", "page_token"], msg: "Invalid page token", type: "value_error" }]);
    }
    expect(agentCalls(dynamo, QueryCommand)).toHaveLength(0);
  });

  it("reads only the caller's workspace partition", async () => {
    const other = aCaller();
    const response = await invoke(handler, listPages({}, other));
    expect(response.json.data).toEqual([]);
    expect(agentCalls(dynamo, QueryCommand)[0]!.ExpressionAttributeValues[":pk"]).toBe(`WS#${other.workspace}`);
  });
});
