import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/delete-alias.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, agentHeadItem, anAgentHead, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace });

beforeEach(() => {
  serveAgentsTable(dynamo, [agentHeadItem(head)]);
});

const removeAlias = (query: Record<string, string>, who = caller) =>
  anEvent({ method: "DELETE", path: `/v1/agents/${head.id}/aliases`, pathParameters: { agent_id: head.id }, query, caller: who });

describe("DELETE /v1/agents/{agent_id}/aliases", () => {
  it("answers 204 and deletes the alias item on condition it exists", async () => {
    const response = await invoke(handler, removeAlias({ alias: "prod" }));

    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(agentCalls(dynamo, DeleteCommand)).toEqual([
      expect.objectContaining({ Key: { pk: `WS#${caller.workspace}#AGENT#${head.id}`, sk: "ALIAS#prod" }, ConditionExpression: "attribute_exists(sk)" }),
    ]);
  });

  it("answers 404 for an unknown alias, and in another workspace without deleting", async () => {
    dynamo.on(DeleteCommand).rejects(new ConditionalCheckFailedException({ message: "none", $metadata: {} }));
    const unknown = await invoke(handler, removeAlias({ alias: "prod" }));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json).toMatchObject({ code: "agent_alias_not_found" });

    dynamo.resetHistory();
    expect((await invoke(handler, removeAlias({ alias: "prod" }, aCaller()))).statusCode).toBe(404);
    expect(agentCalls(dynamo, DeleteCommand)).toHaveLength(0);
  });

  it("answers 422 without an alias", async () => {
    expect((await invoke(handler, removeAlias({}))).statusCode).toBe(422);
  });
});
