import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/list-aliases.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, anAgentHead, serveAgentsTable, anAgentsItems } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace, version: 2, latestVersion: 2 });

beforeEach(() => {
  serveAgentsTable(dynamo, anAgentsItems(head, { versions: { 1: {} }, aliases: { canary: 2, prod: 1 } }));
});

const listAliases = (who = caller) => anEvent({ path: `/v1/agents/${head.id}/aliases`, pathParameters: { agent_id: head.id }, caller: who });

describe("GET /v1/agents/{agent_id}/aliases", () => {
  it("answers every alias of the agent, from the ALIAS# items of its partition", async () => {
    const response = await invoke(handler, listAliases());

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual([
      { alias: "canary", version: 2, created_at: "2025-02-01T00:00:00.000Z", updated_at: "2025-02-02T00:00:00.000Z" },
      { alias: "prod", version: 1, created_at: "2025-02-01T00:00:00.000Z", updated_at: "2025-02-02T00:00:00.000Z" },
    ]);
    expect(agentCalls(dynamo, QueryCommand)[0]).toMatchObject({ ExpressionAttributeValues: { ":pk": `WS#${caller.workspace}#AGENT#${head.id}`, ":prefix": "ALIAS#" } });
  });

  it("answers 404 in another workspace", async () => {
    expect((await invoke(handler, listAliases(aCaller()))).statusCode).toBe(404);
  });
});
