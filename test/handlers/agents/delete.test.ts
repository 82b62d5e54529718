import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { BatchWriteCommand, DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/delete.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, anAgentHead, serveAgentsTable, anAgentsItems } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace, version: 2, latestVersion: 2 });

beforeEach(() => {
  serveAgentsTable(dynamo, anAgentsItems(head, { versions: { 1: {}, 2: {} }, aliases: { prod: 1 } }));
});

const remove = (id = head.id, who = caller) => anEvent({ method: "DELETE", path: `/v1/agents/${id}`, pathParameters: { agent_id: id }, caller: who });

describe("DELETE /v1/agents/{agent_id}", () => {
  it("answers 204 with no body and no content type", async () => {
    const response = await invoke(handler, remove());

    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(response.headers?.["content-type"]).toBeUndefined();
  });

  it("deletes the head first, on condition it exists, then every version and alias of the agent", async () => {
    await invoke(handler, remove());

    expect(agentCalls(dynamo, DeleteCommand)).toEqual([
      expect.objectContaining({ Key: { pk: `WS#${caller.workspace}`, sk: `AGENT#${head.id}` }, ConditionExpression: "attribute_exists(sk)" }),
    ]);
    const deleted = agentCalls(dynamo, BatchWriteCommand).flatMap((c) => c.RequestItems["platform-agents"].map((r: { DeleteRequest: { Key: unknown } }) => r.DeleteRequest.Key));
    const partition = `WS#${caller.workspace}#AGENT#${head.id}`;
    expect(deleted).toEqual([
      { pk: partition, sk: "ALIAS#prod" },
      { pk: partition, sk: "V#0000000001" },
      { pk: partition, sk: "V#0000000002" },
    ]);
  });

  it("retries deletes DynamoDB leaves unprocessed", async () => {
    const partition = `WS#${caller.workspace}#AGENT#${head.id}`;
    dynamo
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { "platform-agents": [{ DeleteRequest: { Key: { pk: partition, sk: "V#0000000002" } } }] } })
      .resolves({});

    expect((await invoke(handler, remove())).statusCode).toBe(204);
    expect(agentCalls(dynamo, BatchWriteCommand)).toHaveLength(2);
  });

  it("answers 404 for an unknown agent, another workspace's, or one deleted meanwhile", async () => {
    expect((await invoke(handler, remove("3b241101-e2bb-4255-8caf-4136c566a962"))).statusCode).toBe(404);
    expect((await invoke(handler, remove(head.id, aCaller()))).statusCode).toBe(404);
    dynamo.on(DeleteCommand).rejects(new ConditionalCheckFailedException({ message: "gone", $metadata: {} }));
    const raced = await invoke(handler, remove());
    expect(raced.statusCode).toBe(404);
    expect(agentCalls(dynamo, BatchWriteCommand)).toHaveLength(0);
  });
});
