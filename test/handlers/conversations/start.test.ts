import { afterEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/conversations/start.js";
import { OfflineProvider } from "../../../shared/inference/providers/offline.js";
import type { ChatCompletionRequest } from "../../../shared/schemas/inference.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invokeStream } from "../../support/builders.js";
import { agentHeadItem, anAgentHead, catalogItems } from "../../support/agents-table.js";
import { serveTables } from "../../support/fake-table.js";
import { conversationEvents, conversationItems, lookupTool } from "../../support/conversations.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

afterEach(() => vi.restoreAllMocks());

const start = (body: Record<string, unknown>, who = caller) => aJsonEvent(body, { path: "/v1/conversations", caller: who });

function tables(agents: ReturnType<typeof anAgentHead>[] = []) {
  return serveTables(dynamo, { models: catalogItems(), agents: agents.map(agentHeadItem) }, { writes: true });
}

describe("POST /v1/conversations", () => {
  it("answers a model's reply as a message.output entry and keeps the input and the output", async () => {
    const held = tables();

    const response = await invokeStream(handler, start({ model: "mistral-small-latest", inputs: "Bonjour", name: "greeting" }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.json).toMatchObject({
      object: "conversation.response",
      conversation_id: expect.stringMatching(/^conv_[0-9a-f]{32}$/),
      outputs: [{ object: "entry", type: "message.output", role: "assistant", model: "mistral-small-latest", content: "[offline] No language model is configured. You said: «Bonjour»" }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
    });
    const stored = conversationItems(held);
    expect(stored.heads).toEqual([expect.objectContaining({ id: response.json.conversation_id, workspace: caller.workspace, name: "greeting", entryCount: 2, pendingCalls: [] })]);
    expect(stored.entries.map((e) => e.type)).toEqual(["message.input", "message.output"]);
  });

  it("sends the conversation's instructions first and its function tools to the model", async () => {
    tables();
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");

    await invokeStream(handler, start({ model: "mistral-small-latest", instructions: "Be brief.", tools: [lookupTool], inputs: "Bonjour" }));

    const sent = chat.mock.calls[0]![0] as ChatCompletionRequest;
    expect(sent.messages).toEqual([{ role: "system", content: "Be brief." }, { role: "user", content: "Bonjour" }]);
    expect(sent.tools?.map((t) => t.function.name)).toEqual(["lookup"]);
  });

  it("returns a function tool's call to the client as a function.call entry and stops the loop", async () => {
    const held = tables();
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");

    const response = await invokeStream(handler, start({ model: "mistral-small-latest", tools: [lookupTool], inputs: "Find it" }));

    expect(response.json.outputs).toEqual([expect.objectContaining({ type: "function.call", name: "lookup", tool_call_id: expect.any(String), arguments: expect.any(String) })]);
    expect(chat).toHaveBeenCalledTimes(1);
    expect(conversationItems(held).heads[0]!.pendingCalls).toEqual([response.json.outputs[0].tool_call_id]);
  });

  it("runs an agent's current version: its model, instructions and tools", async () => {
    const agent = anAgentHead({ workspace: caller.workspace, instructions: "Answer in French.", tools: [lookupTool] });
    tables([agent]);
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");

    const response = await invokeStream(handler, start({ agent_id: agent.id, inputs: "Hello" }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.json.outputs[0]).toMatchObject({ type: "function.call", agent_id: agent.id, name: "lookup" });
    expect((chat.mock.calls[0]![0] as ChatCompletionRequest).messages[0]).toEqual({ role: "system", content: "Answer in French." });
  });

  it("keeps nothing with store: false, and still answers", async () => {
    const held = tables();

    const response = await invokeStream(handler, start({ model: "mistral-small-latest", inputs: "Bonjour", store: false }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.json.outputs).toHaveLength(1);
    expect(held.items("conversations")).toEqual([]);
  });

  it.each(["web_search", "web_search_premium", "code_interpreter", "image_generation"])("refuses the built-in tool %s by name, calling no model", async (type) => {
    const held = tables();
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");

    const response = await invokeStream(handler, start({ model: "mistral-small-latest", tools: [lookupTool, { type }], inputs: "Bonjour" }));

    expect(response.metadata?.statusCode).toBe(400);
    expect(response.json).toMatchObject({ object: "error", code: "unsupported_tool", param: "tools", message: expect.stringContaining(`'${type}'`) });
    expect(chat).not.toHaveBeenCalled();
    expect(held.items("conversations")).toEqual([]);
  });

  it("answers 404 for a document_library naming a library the key may not see, before any model call", async () => {
    const held = tables();
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");

    const response = await invokeStream(handler, start({ model: "mistral-small-latest", tools: [{ type: "document_library", library_ids: ["0b7e5a52-4c1e-4a43-9a39-1f1d5f0f9c11"] }], inputs: "Bonjour" }));

    expect(response.metadata?.statusCode).toBe(404);
    expect(response.json).toMatchObject({ object: "error", code: "library_not_found", message: expect.stringContaining("0b7e5a52-4c1e-4a43-9a39-1f1d5f0f9c11") });
    expect(chat).not.toHaveBeenCalled();
    expect(held.items("conversations")).toEqual([]);
  });

  it("refuses an agent's unserved built-in tool too", async () => {
    const agent = anAgentHead({ workspace: caller.workspace, tools: [{ type: "code_interpreter" }] });
    tables([agent]);

    const response = await invokeStream(handler, start({ agent_id: agent.id, inputs: "Hello" }));

    expect(response.metadata?.statusCode).toBe(400);
    expect(response.json.message).toContain("'code_interpreter'");
  });

  it("answers 422 for neither model nor agent, and for both", async () => {
    tables();

    const neither = await invokeStream(handler, start({ inputs: "Hello" }));
    const both = await invokeStream(handler, start({ inputs: "Hello", model: "mistral-small-latest", agent_id: "a" }));

    expect(neither.metadata?.statusCode).toBe(422);
    expect(both.metadata?.statusCode).toBe(422);
  });

  it("answers 404 for another workspace's agent", async () => {
    const agent = anAgentHead();
    tables([agent]);

    const response = await invokeStream(handler, start({ agent_id: agent.id, inputs: "Hello" }));

    expect(response.metadata?.statusCode).toBe(404);
  });

  it("streams Mistral's conversation events, from response started to response done with usage", async () => {
    const held = tables();

    const response = await invokeStream(handler, start({ model: "mistral-small-latest", inputs: "Bonjour", stream: true }));

    expect(response.metadata?.statusCode).toBe(200);
    const events = conversationEvents(response.body);
    expect(events[0]).toMatchObject({ event: "conversation.response.started", data: { conversation_id: expect.stringMatching(/^conv_/) } });
    const deltas = events.slice(1, -1);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((e) => e.event === "message.output.delta" && e.data.output_index === 0 && e.data.id === deltas[0]!.data.id)).toBe(true);
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
    expect(deltas.map((e) => e.data.content).join("")).toBe("[offline] No language model is configured. You said: «Bonjour»");
    expect(events.at(-1)!.event).toBe("conversation.response.done");
    expect(events.at(-1)!.data.usage).toMatchObject({ prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    expect(conversationItems(held).entries).toHaveLength(2);
  });

  it("streams a function call as function.call.delta", async () => {
    tables();

    const response = await invokeStream(handler, start({ model: "mistral-small-latest", tools: [lookupTool], inputs: "Find", stream: true }));

    const events = conversationEvents(response.body);
    expect(events.map((e) => e.event)).toEqual(["conversation.response.started", "function.call.delta", "conversation.response.done"]);
    expect(events[1]!.data).toMatchObject({ name: "lookup", tool_call_id: expect.any(String), arguments: expect.any(String) });
  });

  it("ends a stream whose model fails after it began with conversation.response.error, keeping nothing", async () => {
    const held = tables();
    vi.spyOn(OfflineProvider.prototype, "chatStream").mockImplementation(async function* () {
      yield { type: "delta", index: 0, content: "Half" };
      throw new Error("connection reset");
    });

    const response = await invokeStream(handler, start({ model: "mistral-small-latest", inputs: "Bonjour", stream: true }));

    const events = conversationEvents(response.body);
    expect(events.at(-1)).toMatchObject({ event: "conversation.response.error", data: { code: 502, message: expect.any(String) } });
    expect(held.items("conversations")).toEqual([]);
  });

  it("cuts off a model call still running at the turn's deadline (504 conversation_time_limit), keeping nothing", async () => {
    const held = tables();
    vi.stubEnv("CONVERSATION_MAX_SECONDS", "0.2");
    vi.spyOn(OfflineProvider.prototype, "chat").mockImplementation(
      (_request, options) => new Promise((_resolve, reject) => options?.signal?.addEventListener("abort", () => reject(options.signal!.reason))),
    );
    try {
      const response = await invokeStream(handler, start({ model: "mistral-small-latest", inputs: "Bonjour" }));

      expect(response.metadata?.statusCode).toBe(504);
      expect(response.json.code).toBe("conversation_time_limit");
      expect(held.items("conversations")).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("stops a loop that calls no end of tools at the step bound (504), keeping nothing", async () => {
    const held = tables();
    vi.stubEnv("CONVERSATION_MAX_STEPS", "1");
    const agent = anAgentHead({ workspace: caller.workspace, handoffs: [] });
    held.put("agents", agentHeadItem(agent));
    try {
      // With a handoff to itself the offline model keeps handing over: each handoff is a step.
      held.put("agents", agentHeadItem({ ...agent, handoffs: [agent.id] }));
      const response = await invokeStream(handler, start({ agent_id: agent.id, inputs: "Hello" }));

      expect(response.metadata?.statusCode).toBe(504);
      expect(response.json.code).toBe("conversation_step_limit");
      expect(held.items("conversations")).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
