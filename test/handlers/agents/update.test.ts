import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/update.js";
import { MAX_VERSION_ATTEMPTS } from "../../../shared/services/agents/agents.js";
import { mockDynamo, withoutRetryBackoff } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { agentCalls, agentHeadItem, anAgentHead, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace, version: 2, latestVersion: 3, instructions: "Be brief.", metadata: { team: "a" }, completion_args: { temperature: 0.3 } });

beforeEach(() => {
  serveAgentsTable(dynamo, [agentHeadItem(head)]);
});
withoutRetryBackoff();

const patch = (body: unknown, id = head.id, who = caller) =>
  aJsonEvent(body, { method: "PATCH", path: `/v1/agents/${id}`, pathParameters: { agent_id: id }, caller: who });
const transactions = () => agentCalls(dynamo, TransactWriteCommand);
const lostRace = () => new TransactionCanceledException({ message: "cancelled", $metadata: {}, CancellationReasons: [{ Code: "ConditionalCheckFailed" }, { Code: "None" }] });

describe("PATCH /v1/agents/{agent_id}", () => {
  it("answers the new version, latest + 1, built on the current one with the fields given replaced", async () => {
    const response = await invoke(handler, patch({ description: "new", metadata: null, version_message: "why" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({
      id: head.id,
      version: 4,
      versions: [1, 2, 3, 4],
      description: "new",
      metadata: null,
      instructions: "Be brief.",
      version_message: "why",
      name: "helper",
    });
    expect(response.json.completion_args.temperature).toBe(0.3);
  });

  it("writes head and version in one transaction, conditioned on the head as it was read", async () => {
    await invoke(handler, patch({ name: "Renamed" }));

    expect(transactions()).toHaveLength(1);
    const [update, put] = transactions()[0]!.TransactItems;
    expect(update.Update).toMatchObject({
      Key: { pk: `WS#${caller.workspace}`, sk: `AGENT#${head.id}` },
      ConditionExpression: "#latest = :seenLatest AND #version = :seenCurrent",
      ExpressionAttributeValues: expect.objectContaining({ ":seenLatest": 3, ":seenCurrent": 2, ":next": 4 }),
    });
    expect(Object.values(update.Update.ExpressionAttributeValues)).toContain("renamed");
    expect(put.Put).toMatchObject({
      ConditionExpression: "attribute_not_exists(sk)",
      Item: { pk: `WS#${caller.workspace}#AGENT#${head.id}`, sk: "V#0000000004", version: 4, name: "Renamed", instructions: "Be brief." },
    });
  });

  it("reads again and retries when another writer won the race", async () => {
    dynamo.on(TransactWriteCommand).rejectsOnce(lostRace()).rejectsOnce(lostRace()).resolves({});

    const response = await invoke(handler, patch({ description: "eventually" }));

    expect(response.statusCode).toBe(200);
    expect(transactions()).toHaveLength(3);
  });

  it("answers 409 after losing every attempt", async () => {
    dynamo.on(TransactWriteCommand).rejects(lostRace());

    const response = await invoke(handler, patch({ description: "never" }));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ type: "conflict_error", code: "agent_version_conflict" });
    expect(transactions()).toHaveLength(MAX_VERSION_ATTEMPTS);
  });

  it("does not retry other failures: they are 500s that say nothing of the cause", async () => {
    dynamo.on(TransactWriteCommand).rejects(new Error("ProvisionedThroughputExceeded inside table platform-agents"));

    const response = await invoke(handler, patch({ description: "x" }));

    expect(response.statusCode).toBe(500);
    expect(JSON.stringify(response.json)).not.toContain("platform-agents");
    expect(transactions()).toHaveLength(1);
  });

  it("answers 404 for an unknown agent or another workspace's, 422 for unknown fields, 400 for a model that cannot chat", async () => {
    expect((await invoke(handler, patch({ name: "x" }, "3b241101-e2bb-4255-8caf-4136c566a962"))).statusCode).toBe(404);
    expect((await invoke(handler, patch({ name: "x" }, head.id, aCaller()))).statusCode).toBe(404);
    const unknown = await invoke(handler, patch({ temperature: 0.1 }));
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json.detail[0]).toMatchObject({ loc: ["body", "temperature"], type: "extra_forbidden" });
    expect((await invoke(handler, patch({ model: "mistral-embed" }))).statusCode).toBe(400);
    expect(transactions()).toHaveLength(0);
  });
});
