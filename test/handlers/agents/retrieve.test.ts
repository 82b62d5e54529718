import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/retrieve.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, anAgentHead, serveAgentsTable, anAgentsItems } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace, version: 3, latestVersion: 3, description: "v3", updatedAt: "2025-03-01T00:00:00.000Z" });

beforeEach(() => {
  serveAgentsTable(dynamo, anAgentsItems(head, { versions: { 1: { description: "v1" }, 2: { description: "v2" } }, aliases: { stable: 1 } }));
});

const get = (id: string, query: Record<string, string> = {}, who = caller) => anEvent({ path: `/v1/agents/${id}`, pathParameters: { agent_id: id }, query, caller: who });

describe("GET /v1/agents/{agent_id}", () => {
  it("answers the current version, read consistently by workspace and id", async () => {
    const response = await invoke(handler, get(head.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: head.id, object: "agent", version: 3, versions: [1, 2, 3], description: "v3", updated_at: "2025-03-01T00:00:00.000Z" });
    expect(agentCalls(dynamo, GetCommand)[0]).toMatchObject({ Key: { pk: `WS#${caller.workspace}`, sk: `AGENT#${head.id}` }, ConsistentRead: true });
  });

  it("answers the agent as of agent_version given as a number", async () => {
    const response = await invoke(handler, get(head.id, { agent_version: "2" }));

    expect(response.json).toMatchObject({ version: 2, versions: [1, 2, 3], description: "v2", updated_at: "2025-01-02T00:00:00.000Z", created_at: head.createdAt });
  });

  it("answers the agent as of the version an alias names", async () => {
    const response = await invoke(handler, get(head.id, { agent_version: "stable" }));

    expect(response.json).toMatchObject({ version: 1, description: "v1" });
  });

  it("answers 404 for an unknown version or alias", async () => {
    for (const agent_version of ["4", "0", "canary"]) {
      const response = await invoke(handler, get(head.id, { agent_version }));
      expect(response.statusCode, agent_version).toBe(404);
      expect(response.json).toMatchObject({ type: "not_found_error", code: "agent_version_not_found" });
    }
  });

  it("answers 404 in another workspace, and for a malformed id without reading", async () => {
    expect((await invoke(handler, get(head.id, {}, aCaller()))).statusCode).toBe(404);
    dynamo.resetHistory();
    const malformed = await invoke(handler, get("agent-1"));
    expect(malformed.statusCode).toBe(404);
    expect(malformed.json).toMatchObject({ code: "agent_not_found" });
    expect(dynamo.calls()).toHaveLength(0);
  });
});
