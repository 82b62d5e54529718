import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/retrieve-version.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, agentHeadItem, agentVersionItem, anAgentHead, anAgentVersion, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace, version: 2, latestVersion: 2, name: "current" });

beforeEach(() => {
  serveAgentsTable(dynamo, [agentHeadItem(head), agentVersionItem(caller.workspace, anAgentVersion(head, 1, { name: "first", version_message: "initial" }))]);
});

const getVersion = (version: string, who = caller) =>
  anEvent({ path: `/v1/agents/${head.id}/versions/${version}`, pathParameters: { agent_id: head.id, version }, caller: who });

describe("GET /v1/agents/{agent_id}/versions/{version}", () => {
  it("answers the agent as of that version, read from the version's own item", async () => {
    const response = await invoke(handler, getVersion("1"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: head.id, version: 1, versions: [1, 2], name: "first", version_message: "initial" });
    expect(agentCalls(dynamo, GetCommand).map((c) => c.Key)).toContainEqual({ pk: `WS#${caller.workspace}#AGENT#${head.id}`, sk: "V#0000000001" });
  });

  it("answers 404 for a version past the latest without reading it, and for a missing item", async () => {
    const past = await invoke(handler, getVersion("3"));
    expect(past.statusCode).toBe(404);
    expect(agentCalls(dynamo, GetCommand).map((c) => c.Key.sk)).toEqual([`AGENT#${head.id}`]);
    // Version 2's item is absent from this table: a store that lost it answers 404, not a half-made agent.
    expect((await invoke(handler, getVersion("2"))).statusCode).toBe(404);
  });

  it("answers 404 in another workspace", async () => {
    expect((await invoke(handler, getVersion("1", aCaller()))).statusCode).toBe(404);
  });
});
