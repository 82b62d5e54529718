import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/list-versions.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, agentHeadItem, agentVersionItem, anAgentHead, anAgentVersion, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace, version: 25, latestVersion: 25 });

beforeEach(() => {
  const versions = Array.from({ length: 25 }, (_, i) => agentVersionItem(caller.workspace, anAgentVersion(head, i + 1, { description: `v${i + 1}` })));
  serveAgentsTable(dynamo, [agentHeadItem(head), ...versions]);
});

const listVersions = (query: Record<string, string> = {}, who = caller) =>
  anEvent({ path: `/v1/agents/${head.id}/versions`, pathParameters: { agent_id: head.id }, query, caller: who });
const versionsOf = (json: { version: number }[]) => json.map((a) => a.version);

describe("GET /v1/agents/{agent_id}/versions", () => {
  it("answers a bare array of the newest 20 versions, newest first", async () => {
    const response = await invoke(handler, listVersions());

    expect(response.statusCode).toBe(200);
    expect(versionsOf(response.json)).toEqual(Array.from({ length: 20 }, (_, i) => 25 - i));
    expect(response.json[0]).toMatchObject({ id: head.id, object: "agent", description: "v25", versions: Array.from({ length: 25 }, (_, i) => i + 1) });
  });

  it("reads one page as one key range of the agent's partition, newest first", async () => {
    await invoke(handler, listVersions({ page: "1", page_size: "10" }));

    const queries = agentCalls(dynamo, QueryCommand);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatchObject({
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :low AND :high",
      ExpressionAttributeValues: { ":pk": `WS#${caller.workspace}#AGENT#${head.id}`, ":low": "V#0000000006", ":high": "V#0000000015" },
      ScanIndexForward: false,
    });
  });

  it("answers the short last page and an empty page past the end, without a query for the latter", async () => {
    expect(versionsOf((await invoke(handler, listVersions({ page: "2", page_size: "10" }))).json)).toEqual([5, 4, 3, 2, 1]);
    dynamo.resetHistory();
    expect((await invoke(handler, listVersions({ page: "3", page_size: "10" }))).json).toEqual([]);
    expect(agentCalls(dynamo, QueryCommand)).toHaveLength(0);
  });

  it("refuses page_size over 100 and a negative page with 422; another workspace's agent is a 404", async () => {
    expect((await invoke(handler, listVersions({ page_size: "101" }))).statusCode).toBe(422);
    expect((await invoke(handler, listVersions({ page: "-1" }))).statusCode).toBe(422);
    expect((await invoke(handler, listVersions({}, aCaller()))).statusCode).toBe(404);
  });
});
