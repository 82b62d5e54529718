import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/create.js";
import { MAX_AGENT_BYTES } from "../../../shared/services/agents/agents.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { agentCalls, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();

beforeEach(() => {
  serveAgentsTable(dynamo, []);
});

const create = (body: unknown) => aJsonEvent(body, { path: "/v1/agents", caller });
const transactions = () => agentCalls(dynamo, TransactWriteCommand);

describe("POST /v1/agents", () => {
  it("answers 200 with version 1 of the agent", async () => {
    const response = await invoke(handler, create({ model: "mistral-small-latest", name: "helper", instructions: "Be brief." }));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toMatchObject({
      object: "agent",
      name: "helper",
      model: "mistral-small-latest",
      instructions: "Be brief.",
      version: 1,
      versions: [1],
      source: "api",
      deployment_chat: false,
      owner_id: caller.principal,
      tools: [],
    });
    expect(response.json.created_at).toMatch(/Z$/);
  });

  it("writes the head and version 1 in one transaction, neither of which may exist yet", async () => {
    const response = await invoke(handler, create({ model: "mistral-small-latest", name: "helper", metadata: { team: "a" } }));

    expect(transactions()).toHaveLength(1);
    const [head, version] = transactions()[0]!.TransactItems;
    const id = response.json.id;
    expect(head.Put).toMatchObject({
      TableName: "platform-agents",
      ConditionExpression: "attribute_not_exists(sk)",
      Item: { pk: `WS#${caller.workspace}`, sk: `AGENT#${id}`, workspace: caller.workspace, organization: caller.organization, version: 1, latestVersion: 1, metadata: { team: "a" }, nameLower: "helper" },
    });
    expect(head.Put.Item.createdKey).toMatch(new RegExp(`^\\d{15}#${id}$`));
    expect(version.Put).toMatchObject({
      ConditionExpression: "attribute_not_exists(sk)",
      Item: { pk: `WS#${caller.workspace}#AGENT#${id}`, sk: "V#0000000001", id, version: 1, name: "helper", metadata: { team: "a" } },
    });
  });

  it("rejects unknown fields and a missing name with 422, writing nothing", async () => {
    const unknown = await invoke(handler, create({ model: "mistral-small-latest", name: "x", temperature: 0.2 }));
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json.detail).toEqual([{ loc: ["body", "temperature"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);

    const missing = await invoke(handler, create({ model: "mistral-small-latest" }));
    expect(missing.statusCode).toBe(422);
    expect(missing.json.detail).toEqual([expect.objectContaining({ loc: ["body", "name"], type: "missing" })]);
    expect(transactions()).toHaveLength(0);
  });

  it("refuses an unknown model and a model without chat with 400, writing nothing", async () => {
    const unknown = await invoke(handler, create({ model: "gpt-9", name: "x" }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json).toMatchObject({ code: "invalid_model", param: "model" });

    const embeddings = await invoke(handler, create({ model: "mistral-embed", name: "x" }));
    expect(embeddings.statusCode).toBe(400);
    expect(embeddings.json).toMatchObject({ code: "model_capability_missing" });
    expect(transactions()).toHaveLength(0);
  });

  it("refuses an agent too large for one record with 413", async () => {
    const response = await invoke(handler, create({ model: "mistral-small-latest", name: "x", instructions: "x".repeat(MAX_AGENT_BYTES) }));
    expect(response.statusCode).toBe(413);
    expect(transactions()).toHaveLength(0);
  });
});
