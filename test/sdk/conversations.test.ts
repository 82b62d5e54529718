/**
 * The Conversations group driven by the official, unmodified SDK (`@mistralai/mistralai`) against the local server:
 * every `beta.conversations.*` method, plain and streamed. Every answer must parse into the SDK's shapes (entries
 * and stream events are discriminated unions the SDK validates).
 */
import { Mistral } from "@mistralai/mistralai";
import type { ConversationEvents } from "@mistralai/mistralai/models/components";
import { SDKError } from "@mistralai/mistralai/models/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { aConnectorBody, connectorsClient } from "../support/connectors-client.js";
import { startMcpServer, type TestMcpServer } from "../support/mcp-server.js";
import { errorOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
let mcp: TestMcpServer;
beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  mcp = await startMcpServer();
});
afterAll(() => mcp.close());

const weatherTool = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};

async function eventsOf(stream: AsyncIterable<ConversationEvents>): Promise<ConversationEvents[]> {
  const events: ConversationEvents[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("beta.conversations", () => {
  it("start from a model, then get, list, getHistory, getMessages", async () => {
    const started = await client.beta.conversations.start({ model: "mistral-small-latest", inputs: "Bonjour", instructions: "Be brief.", metadata: { sdk: "yes" } });

    expect(started.object).toBe("conversation.response");
    expect(started.outputs[0]).toMatchObject({ type: "message.output", role: "assistant", content: expect.stringContaining("«Bonjour»") });
    expect(started.usage.totalTokens).toBeGreaterThan(0);
    const id = started.conversationId;

    const conversation = await client.beta.conversations.get({ conversationId: id });
    expect(conversation).toMatchObject({ id, model: "mistral-small-latest", instructions: "Be brief." });
    expect((await client.beta.conversations.list({ pageSize: 100 })).map((c) => c.id)).toContain(id);
    const history = await client.beta.conversations.getHistory({ conversationId: id });
    expect(history.entries.map((e) => e.type)).toEqual(["message.input", "message.output"]);
    const messages = await client.beta.conversations.getMessages({ conversationId: id });
    expect(messages.messages).toHaveLength(2);
  });

  it("start from an agent at a version, with a function tool round-tripped through append", async () => {
    const agent = await client.beta.agents.create({ model: "mistral-small-latest", name: "weather", tools: [weatherTool] });

    const started = await client.beta.conversations.start({ agentId: agent.id, agentVersion: 1, inputs: "Weather in Paris?" });
    const call = started.outputs[0]!;
    expect(call).toMatchObject({ type: "function.call", name: "get_weather", agentId: agent.id });
    if (call.type !== "function.call") throw new Error("expected a function call");

    const answered = await client.beta.conversations.append({
      conversationId: started.conversationId,
      conversationAppendRequest: { inputs: [{ type: "function.result", toolCallId: call.toolCallId, result: "Sunny, 24°C" }] },
    });

    expect(answered.outputs[0]).toMatchObject({ type: "message.output", content: expect.stringContaining("«Sunny, 24°C»") });
    expect(await client.beta.conversations.get({ conversationId: started.conversationId })).toMatchObject({ agentId: agent.id, agentVersion: 1 });
  });

  it("startStream, appendStream and restartStream emit Mistral's events", async () => {
    const started = await eventsOf(await client.beta.conversations.startStream({ model: "mistral-small-latest", inputs: "Hello" }));
    const types = started.map((e) => e.event);
    expect(types[0]).toBe("conversation.response.started");
    expect(types).toContain("message.output.delta");
    expect(types.at(-1)).toBe("conversation.response.done");
    const id = started[0]!.data.type === "conversation.response.started" ? started[0]!.data.conversationId : "";

    const appended = await eventsOf(await client.beta.conversations.appendStream({ conversationId: id, conversationAppendStreamRequest: { inputs: "Again" } }));
    expect(appended.at(-1)!.event).toBe("conversation.response.done");

    const history = await client.beta.conversations.getHistory({ conversationId: id });
    const restarted = await eventsOf(await client.beta.conversations.restartStream({ conversationId: id, conversationRestartStreamRequest: { fromEntryId: history.entries[0]!.id!, inputs: "Other" } }));
    expect(restarted.at(-1)!.event).toBe("conversation.response.done");
  });

  it("restart branches from an entry into a new conversation", async () => {
    const started = await client.beta.conversations.start({ model: "mistral-small-latest", inputs: "First" });
    const [input] = (await client.beta.conversations.getHistory({ conversationId: started.conversationId })).entries;

    const branch = await client.beta.conversations.restart({ conversationId: started.conversationId, conversationRestartRequest: { fromEntryId: input!.id!, inputs: "Second" } });

    expect(branch.conversationId).not.toBe(started.conversationId);
    expect((await client.beta.conversations.getHistory({ conversationId: branch.conversationId })).entries).toHaveLength(3);
  });

  it("store: false keeps nothing", async () => {
    const started = await client.beta.conversations.start({ model: "mistral-small-latest", inputs: "Secret", store: false });

    const error = await errorOf(client.beta.conversations.get({ conversationId: started.conversationId }), SDKError);
    expect(error.statusCode).toBe(404);
  });

  it("delete removes a conversation", async () => {
    const started = await client.beta.conversations.start({ model: "mistral-small-latest", inputs: "Bye" });

    await client.beta.conversations.delete({ conversationId: started.conversationId });

    expect((await errorOf(client.beta.conversations.get({ conversationId: started.conversationId }), SDKError)).statusCode).toBe(404);
  });

  it("refuses a built-in tool the deployment cannot run, naming it", async () => {
    const error = await errorOf(client.beta.conversations.start({ model: "mistral-small-latest", inputs: "Draw", tools: [{ type: "image_generation" }] }), SDKError);

    expect(error.statusCode).toBe(400);
    expect(error.body).toContain("image_generation");
  });

  it("runs an agent's MCP connector tool server-side, and hands over to a second agent", async () => {
    const connector = await connectorsClient(api, tenant).created(aConnectorBody({ server: mcp.url }));
    const tools = await client.beta.agents.create({ model: "mistral-small-latest", name: "tools", tools: [{ type: "connector", connectorId: connector.id, toolConfiguration: { include: ["echo"] } }] });
    const front = await client.beta.agents.create({ model: "mistral-small-latest", name: "front", handoffs: [tools.id] });

    const ran = await client.beta.conversations.start({ agentId: tools.id, inputs: "Echo something" });
    expect(ran.outputs.map((o) => o.type)).toEqual(["tool.execution", "message.output"]);

    const handed = await client.beta.conversations.start({ agentId: front.id, inputs: "I need tools" });
    expect(handed.outputs[0]).toMatchObject({ type: "agent.handoff", previousAgentId: front.id, nextAgentId: tools.id });
  });
});
