import { afterEach, describe, expect, it, vi } from "vitest";
import { handler as append } from "../../../functions/conversations/append.js";
import { handler as start } from "../../../functions/conversations/start.js";
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

const startEvent = (body: Record<string, unknown>, who = caller) => aJsonEvent(body, { path: "/v1/conversations", caller: who });
const appendEvent = (id: string, body: Record<string, unknown>, who = caller) => aJsonEvent(body, { path: `/v1/conversations/${id}`, pathParameters: { conversation_id: id }, caller: who });
const tables = (agents: ReturnType<typeof anAgentHead>[] = []) => serveTables(dynamo, { models: catalogItems(), agents: agents.map(agentHeadItem) }, { writes: true });

/** A conversation whose model called `lookup`: its id and the call's tool_call_id. */
async function waitingForLookup(): Promise<{ id: string; callId: string }> {
  const started = await invokeStream(start, startEvent({ model: "mistral-small-latest", tools: [lookupTool], inputs: "Find the invoice" }));
  return { id: started.json.conversation_id, callId: started.json.outputs[0].tool_call_id };
}

describe("POST /v1/conversations/{conversation_id}", () => {
  it("takes a function.result for the pending call and lets the model answer with it", async () => {
    const held = tables();
    const { id, callId } = await waitingForLookup();
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");

    const response = await invokeStream(append, appendEvent(id, { inputs: [{ type: "function.result", tool_call_id: callId, result: "Invoice 42: 1200 EUR" }] }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.json).toMatchObject({ conversation_id: id, outputs: [{ type: "message.output", content: "[offline] No language model is configured. The tool answered: «Invoice 42: 1200 EUR»" }] });
    const sent = (chat.mock.calls[0]![0] as ChatCompletionRequest).messages;
    expect(sent.slice(-2)).toEqual([
      { role: "assistant", content: "", tool_calls: [{ id: callId, type: "function", function: { name: "lookup", arguments: expect.any(String) } }], prefix: false },
      { role: "tool", content: "Invoice 42: 1200 EUR", tool_call_id: callId },
    ]);
    const stored = conversationItems(held);
    expect(stored.entries.map((e) => e.type)).toEqual(["message.input", "function.call", "function.result", "message.output"]);
    expect(stored.heads[0]).toMatchObject({ entryCount: 4, pendingCalls: [] });
  });

  it("answers 422 for a function.result that answers no pending call", async () => {
    const held = tables();
    const { id } = await waitingForLookup();

    const response = await invokeStream(append, appendEvent(id, { inputs: [{ type: "function.result", tool_call_id: "nope", result: "x" }] }));

    expect(response.metadata?.statusCode).toBe(422);
    expect(response.json.detail[0]).toMatchObject({ loc: ["body", "inputs", 0, "tool_call_id"] });
    expect(conversationItems(held).entries).toHaveLength(2);
  });

  it("answers 422 for a message while a function call waits for its result", async () => {
    tables();
    const { id, callId } = await waitingForLookup();

    const response = await invokeStream(append, appendEvent(id, { inputs: "Never mind" }));

    expect(response.metadata?.statusCode).toBe(422);
    expect(response.json.detail[0].msg).toContain(callId);
  });

  it("keeps nothing with store: false", async () => {
    const held = tables();
    const started = await invokeStream(start, startEvent({ model: "mistral-small-latest", inputs: "Hi" }));

    const response = await invokeStream(append, appendEvent(started.json.conversation_id, { inputs: "Again", store: false }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(conversationItems(held).entries).toHaveLength(2);
  });

  it("answers 404 for another workspace's conversation and for an unknown id", async () => {
    tables();
    const started = await invokeStream(start, startEvent({ model: "mistral-small-latest", inputs: "Hi" }));

    const intruder = await invokeStream(append, appendEvent(started.json.conversation_id, { inputs: "Hi" }, aCaller()));
    const unknown = await invokeStream(append, appendEvent("conv_00000000000000000000000000000000", { inputs: "Hi" }));

    expect(intruder.metadata?.statusCode).toBe(404);
    expect(unknown.metadata?.statusCode).toBe(404);
  });

  it("streams the turn: started, deltas, done", async () => {
    tables();
    const started = await invokeStream(start, startEvent({ model: "mistral-small-latest", inputs: "Hi" }));

    const response = await invokeStream(append, appendEvent(started.json.conversation_id, { inputs: "Again", stream: true }));

    const events = conversationEvents(response.body).map((e) => e.event);
    expect(events[0]).toBe("conversation.response.started");
    expect(events.at(-1)).toBe("conversation.response.done");
  });
});

describe("handoffs", () => {
  const second = () => anAgentHead({ workspace: caller.workspace, name: "Billing desk" });

  it("moves the conversation to the next agent on the server and lets it answer", async () => {
    const billing = second();
    const front = anAgentHead({ workspace: caller.workspace, name: "Front desk", handoffs: [billing.id] });
    const held = tables([front, billing]);
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");

    const response = await invokeStream(start, startEvent({ agent_id: front.id, inputs: "My invoice is wrong" }));

    expect(response.json.outputs).toEqual([
      expect.objectContaining({ type: "agent.handoff", previous_agent_id: front.id, previous_agent_name: "Front desk", next_agent_id: billing.id, next_agent_name: "Billing desk" }),
      expect.objectContaining({ type: "message.output", agent_id: billing.id }),
    ]);
    expect((chat.mock.calls[0]![0] as ChatCompletionRequest).tools?.map((t) => t.function.name)).toEqual(["transfer_to_billing_desk"]);
    expect(conversationItems(held).heads[0]).toMatchObject({ agentId: front.id, activeAgentId: billing.id });
    // Each model call of the loop is a usage record of its own, even within one millisecond.
    const records = held.items("usage").filter((i) => i.route === "POST /v1/conversations");
    expect(records.map((r) => r.call).toSorted()).toEqual([1, 2]);
    expect(new Set(records.map((r) => r.sk)).size).toBe(2);
  });

  it("returns the handoff to the client with handoff_execution client, and the next turn is the next agent's", async () => {
    const billing = second();
    const front = anAgentHead({ workspace: caller.workspace, name: "Front desk", handoffs: [billing.id] });
    tables([front, billing]);

    const first = await invokeStream(start, startEvent({ agent_id: front.id, inputs: "My invoice is wrong", handoff_execution: "client" }));
    const next = await invokeStream(append, appendEvent(first.json.conversation_id, { inputs: "Hello?" }));

    expect(first.json.outputs.map((o: { type: string }) => o.type)).toEqual(["agent.handoff"]);
    expect(next.json.outputs[0]).toMatchObject({ type: "message.output", agent_id: billing.id });
  });

  it("streams the handoff as agent.handoff.started and agent.handoff.done", async () => {
    const billing = second();
    const front = anAgentHead({ workspace: caller.workspace, name: "Front desk", handoffs: [billing.id] });
    tables([front, billing]);

    const response = await invokeStream(start, startEvent({ agent_id: front.id, inputs: "Help", stream: true }));

    const events = conversationEvents(response.body);
    expect(events.map((e) => e.event).slice(0, 3)).toEqual(["conversation.response.started", "agent.handoff.started", "agent.handoff.done"]);
    expect(events[2]!.data).toMatchObject({ next_agent_id: billing.id, next_agent_name: "Billing desk" });
  });
});
