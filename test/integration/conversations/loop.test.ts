/**
 * Conversations against the embedded servers and the offline provider (call one tool, then quote its result): the
 * loop runs a connector's tool on a real MCP server, returns function calls to the client, hands over between agents,
 * counts every model call in usage, and keeps entries in the local DynamoDB.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { conversationEvents, lookupTool } from "../../support/conversations.js";
import { inferenceClient, usageRecordsOf } from "../../support/inference-client.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);
const agents = agentsClient(api, tenant);
const connectors = connectorsClient(api, tenant);

let mcp: TestMcpServer;
beforeAll(async () => {
  mcp = await startMcpServer();
});
afterAll(() => mcp.close());

const post = (path: string, json: unknown) => client.request("POST", path, { json });
const get = (path: string) => client.request("GET", path);

async function streamed(path: string, json: Record<string, unknown>) {
  const response = await fetch(`${api.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" }, body: JSON.stringify({ ...json, stream: true }) });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  return conversationEvents(await response.text());
}

async function anAgent(extra: Record<string, unknown>): Promise<string> {
  const reply = await agents.create(anAgentRequest(extra));
  expect(reply.status).toBe(200);
  return reply.body.id;
}

describe("the agent loop: POST /v1/conversations, POST /v1/conversations/{conversation_id}", () => {
  it("runs a connector's MCP tool on the server, records it, and lets the model quote its result", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    const agent = await anAgent({ tools: [{ type: "connector", connector_id: connector.id, tool_configuration: { include: ["echo"] } }] });

    const reply = await post("/v1/conversations", { agent_id: agent, inputs: "Say something" });

    expect(reply.status).toBe(200);
    expect(reply.body.outputs).toEqual([
      expect.objectContaining({ type: "tool.execution", name: "echo", arguments: expect.any(String), info: expect.objectContaining({ connector_id: connector.id, result: expect.any(String), is_error: false }) }),
      expect.objectContaining({ type: "message.output", agent_id: agent }),
    ]);
    const toolResult = reply.body.outputs[0].info.result;
    expect(reply.body.outputs[1].content).toContain(`«${toolResult}»`);
    expect(reply.body.usage.connectors).toEqual({ echo: 1 });
    // Both model calls of the loop are counted.
    const records = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
    expect(records).toHaveLength(2);
    const history = await get(`/v1/conversations/${reply.body.conversation_id}/history`);
    expect(history.body.entries.map((e: { type: string }) => e.type)).toEqual(["message.input", "tool.execution", "message.output"]);
  });

  it("streams a connector's execution as tool.execution.started and tool.execution.done", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    const agent = await anAgent({ tools: [{ type: "connector", connector_id: connector.id, tool_configuration: { include: ["echo"] } }] });

    const events = await streamed("/v1/conversations", { agent_id: agent, inputs: "Say something" });

    const names = events.map((e) => e.event);
    expect(names[0]).toBe("conversation.response.started");
    expect(names.slice(1, 3)).toEqual(["tool.execution.started", "tool.execution.done"]);
    expect(names).toContain("message.output.delta");
    expect(names.at(-1)).toBe("conversation.response.done");
    expect(events.at(-1)!.data.usage.total_tokens).toBeGreaterThan(0);
  });

  it("round-trips a function tool through append", async () => {
    const started = await post("/v1/conversations", { model: "mistral-small-latest", tools: [lookupTool], inputs: "Find invoice 42" });
    const call = started.body.outputs[0];
    expect(call).toMatchObject({ type: "function.call", name: "lookup" });

    const answered = await post(`/v1/conversations/${started.body.conversation_id}`, { inputs: [{ type: "function.result", tool_call_id: call.tool_call_id, result: "1200 EUR" }] });

    expect(answered.status).toBe(200);
    expect(answered.body.outputs[0].content).toContain("«1200 EUR»");
    const wrong = await post(`/v1/conversations/${started.body.conversation_id}`, { inputs: [{ type: "function.result", tool_call_id: call.tool_call_id, result: "again" }] });
    expect(wrong.status).toBe(422);
  });

  it("hands a conversation over to a second agent, which answers", async () => {
    const billing = await anAgent({ name: "Billing" });
    const front = await anAgent({ name: "Front", handoffs: [billing] });

    const reply = await post("/v1/conversations", { agent_id: front, inputs: "My invoice is wrong" });

    expect(reply.body.outputs.map((o: { type: string }) => o.type)).toEqual(["agent.handoff", "message.output"]);
    expect(reply.body.outputs[1].agent_id).toBe(billing);
    const streamedEvents = (await streamed("/v1/conversations", { agent_id: front, inputs: "Again" })).map((e) => e.event);
    expect(streamedEvents).toEqual(expect.arrayContaining(["agent.handoff.started", "agent.handoff.done", "conversation.response.done"]));
  });

  it("refuses web_search by name", async () => {
    const reply = await post("/v1/conversations", { model: "mistral-small-latest", tools: [{ type: "web_search" }], inputs: "News?" });

    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("'web_search'");
  });
});

describe("stored conversations: GET /v1/conversations, GET /v1/conversations/{conversation_id}, GET /v1/conversations/{conversation_id}/history, GET /v1/conversations/{conversation_id}/messages, POST /v1/conversations/{conversation_id}/restart, DELETE /v1/conversations/{conversation_id}", () => {
  it("lists, gets, restarts, and deletes", async () => {
    const started = await post("/v1/conversations", { model: "mistral-small-latest", inputs: "First", metadata: { team: "blue" } });
    const id = started.body.conversation_id;

    expect((await get(`/v1/conversations/${id}`)).body).toMatchObject({ object: "conversation", id, model: "mistral-small-latest", metadata: { team: "blue" } });
    expect((await get("/v1/conversations")).body.map((c: { id: string }) => c.id)).toEqual([id]);
    const messages = (await get(`/v1/conversations/${id}/messages`)).body.messages;
    expect(messages.map((m: { type: string }) => m.type)).toEqual(["message.input", "message.output"]);

    const branch = await post(`/v1/conversations/${id}/restart`, { from_entry_id: messages[0].id, inputs: "Second" });
    expect(branch.status).toBe(200);
    const branchHistory = (await get(`/v1/conversations/${branch.body.conversation_id}/history`)).body.entries;
    expect(branchHistory.map((e: { content: string }) => e.content)).toEqual(["First", "Second", expect.stringContaining("«Second»")]);

    expect((await client.request("DELETE", `/v1/conversations/${id}`)).status).toBe(204);
    expect((await get(`/v1/conversations/${id}`)).status).toBe(404);
    expect((await get(`/v1/conversations/${branch.body.conversation_id}`)).status).toBe(200);
  });

  it("keeps nothing with store: false", async () => {
    const reply = await post("/v1/conversations", { model: "mistral-small-latest", inputs: "Secret", store: false });

    expect(reply.status).toBe(200);
    expect((await get(`/v1/conversations/${reply.body.conversation_id}`)).status).toBe(404);
    expect((await get("/v1/conversations")).body).toEqual([]);
  });
});
