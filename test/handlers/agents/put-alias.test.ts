import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/put-alias.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentAliasItem, agentCalls, agentHeadItem, anAgentHead, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace, version: 2, latestVersion: 2 });

beforeEach(() => {
  // The alias item as the transaction leaves it, for the read that follows.
  serveAgentsTable(dynamo, [agentHeadItem(head), agentAliasItem(caller.workspace, head.id, "stable", 2)]);
});

const putAlias = (query: Record<string, string>, who = caller) =>
  anEvent({ method: "PUT", path: `/v1/agents/${head.id}/aliases`, pathParameters: { agent_id: head.id }, query, caller: who });

describe("PUT /v1/agents/{agent_id}/aliases", () => {
  it("answers the alias with its version and times", async () => {
    const response = await invoke(handler, putAlias({ alias: "stable", version: "2" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ alias: "stable", version: 2, created_at: "2025-02-01T00:00:00.000Z", updated_at: "2025-02-02T00:00:00.000Z" });
  });

  it("writes the alias in a transaction that checks the agent still has that version, keeping created_at on a move", async () => {
    await invoke(handler, putAlias({ alias: "stable", version: "2" }));

    const [check, update] = agentCalls(dynamo, TransactWriteCommand)[0]!.TransactItems;
    expect(check.ConditionCheck).toMatchObject({
      Key: { pk: `WS#${caller.workspace}`, sk: `AGENT#${head.id}` },
      ConditionExpression: "attribute_exists(sk) AND #latest >= :version",
      ExpressionAttributeValues: { ":version": 2 },
    });
    expect(update.Update).toMatchObject({ Key: { pk: `WS#${caller.workspace}#AGENT#${head.id}`, sk: "ALIAS#stable" } });
    expect(update.Update.UpdateExpression).toContain("if_not_exists(#createdAt, :now)");
  });

  it("answers 404 for a version past the latest, and when the agent went away meanwhile", async () => {
    expect((await invoke(handler, putAlias({ alias: "stable", version: "3" }))).statusCode).toBe(404);
    expect(agentCalls(dynamo, TransactWriteCommand)).toHaveLength(0);

    dynamo.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: "x", $metadata: {}, CancellationReasons: [{ Code: "ConditionalCheckFailed" }, { Code: "None" }] }));
    expect((await invoke(handler, putAlias({ alias: "stable", version: "1" }))).statusCode).toBe(404);
  });

  it("refuses alias names the OpenAPI's pattern excludes, and a missing version, with 422", async () => {
    for (const query of <Record<string, string>[]>[{ alias: "Stable", version: "1" }, { alias: "1st", version: "1" }, { alias: "ends-", version: "1" }, { alias: "x".repeat(65), version: "1" }, { alias: "ok" }]) {
      expect((await invoke(handler, putAlias(query))).statusCode, JSON.stringify(query)).toBe(422);
    }
  });
});
