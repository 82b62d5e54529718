import { afterEach, describe, expect, it, vi } from "vitest";
import { handler as remove } from "../../../functions/conversations/delete.js";
import { handler as history } from "../../../functions/conversations/history.js";
import { handler as list } from "../../../functions/conversations/list.js";
import { handler as messages } from "../../../functions/conversations/messages.js";
import { handler as retrieve } from "../../../functions/conversations/retrieve.js";
import { handler as start } from "../../../functions/conversations/start.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke, invokeStream } from "../../support/builders.js";
import { anAgentHead, anAgentsItems, catalogItems } from "../../support/agents-table.js";
import { serveTables } from "../../support/fake-table.js";
import { lookupTool } from "../../support/conversations.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

afterEach(() => vi.restoreAllMocks());

const read = (path: string, id: string, who = caller, method = "GET") => anEvent({ method, path: `/v1/conversations/${id}${path}`, pathParameters: { conversation_id: id }, caller: who });

async function aConversation(body: Record<string, unknown> = {}): Promise<string> {
  const started = await invokeStream(start, aJsonEvent({ model: "mistral-small-latest", inputs: "Hi", ...body }, { path: "/v1/conversations", caller }));
  return started.json.conversation_id;
}

describe("GET /v1/conversations, GET /v1/conversations/{conversation_id}, GET /v1/conversations/{conversation_id}/history, GET /v1/conversations/{conversation_id}/messages, DELETE /v1/conversations/{conversation_id}", () => {
  it("GET answers a model conversation with its model, instructions and tools", async () => {
    serveTables(dynamo, { models: catalogItems() }, { writes: true });
    const id = await aConversation({ instructions: "Be brief.", name: "n", metadata: { team: "a" } });

    const response = await invoke(retrieve, read("", id));

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ object: "conversation", id, model: "mistral-small-latest", instructions: "Be brief.", name: "n", metadata: { team: "a" }, tools: [] });
  });

  it("GET answers an agent conversation with its agent and version", async () => {
    const agent = anAgentHead({ workspace: caller.workspace });
    serveTables(dynamo, { models: catalogItems(), agents: anAgentsItems(agent, { versions: { 1: {} } }) }, { writes: true });
    const started = await invokeStream(start, aJsonEvent({ agent_id: agent.id, agent_version: 1, inputs: "Hi" }, { path: "/v1/conversations", caller }));

    const body = JSON.parse((await invoke(retrieve, read("", started.json.conversation_id))).body);

    expect(body).toMatchObject({ object: "conversation", agent_id: agent.id, agent_version: 1 });
    expect(body).not.toHaveProperty("model");
  });

  it("history answers every entry in order, messages only the messages", async () => {
    serveTables(dynamo, { models: catalogItems() }, { writes: true });
    const id = await aConversation({ tools: [lookupTool] });

    const all = JSON.parse((await invoke(history, read("/history", id))).body);
    const only = JSON.parse((await invoke(messages, read("/messages", id))).body);

    expect(all).toMatchObject({ object: "conversation.history", conversation_id: id });
    expect(all.entries.map((e: { type: string }) => e.type)).toEqual(["message.input", "function.call"]);
    expect(only).toMatchObject({ object: "conversation.messages", conversation_id: id });
    expect(only.messages.map((e: { type: string }) => e.type)).toEqual(["message.input"]);
    expect(all.entries[1]).not.toHaveProperty("callId");
  });

  it("lists the workspace's conversations newest first, by page", async () => {
    serveTables(dynamo, { models: catalogItems() }, { writes: true });
    const first = await aConversation();
    await new Promise((r) => setTimeout(r, 5));
    const second = await aConversation();
    await invokeStream(start, aJsonEvent({ model: "mistral-small-latest", inputs: "Hi" }, { path: "/v1/conversations", caller: aCaller() }));

    const page = JSON.parse((await invoke(list, anEvent({ method: "GET", path: "/v1/conversations", query: { page_size: "1" }, caller }))).body);
    const next = JSON.parse((await invoke(list, anEvent({ method: "GET", path: "/v1/conversations", query: { page: "1", page_size: "1" }, caller }))).body);
    const all = JSON.parse((await invoke(list, anEvent({ method: "GET", path: "/v1/conversations", caller }))).body);

    expect(page.map((c: { id: string }) => c.id)).toEqual([second]);
    expect(next.map((c: { id: string }) => c.id)).toEqual([first]);
    expect(all.map((c: { id: string }) => c.id)).toEqual([second, first]);
  });

  it("DELETE removes the conversation and its entries; then it is not found", async () => {
    const held = serveTables(dynamo, { models: catalogItems() }, { writes: true });
    const id = await aConversation();

    const deleted = await invoke(remove, read("", id, caller, "DELETE"));
    const after = await invoke(retrieve, read("", id));

    expect(deleted.statusCode).toBe(204);
    expect(after.statusCode).toBe(404);
    expect(held.items("conversations")).toEqual([]);
  });

  it.each([
    ["GET", "", retrieve],
    ["GET", "/history", history],
    ["GET", "/messages", messages],
    ["DELETE", "", remove],
  ] as const)("%s %s answers 404 for another workspace's conversation", async (method, path, handler) => {
    const held = serveTables(dynamo, { models: catalogItems() }, { writes: true });
    const id = await aConversation();

    const response = await invoke(handler, read(path, id, aCaller(), method));

    expect(response.statusCode).toBe(404);
    expect(held.items("conversations")).toHaveLength(3);
  });
});
