/**
 * The document_library tool in the agent loop, against the embedded servers, LanceDB and the offline provider (call
 * one tool, then quote its result): the platform searches the tool's libraries, records a `tool.execution` entry
 * named `document_library`, the model quotes the chunks it read, and the query's embedding is a model call of the turn.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../../shared/domain/caller.js";
import type { UsageRecord } from "../../../shared/domain/usage.js";
import { vectorStore } from "../../../shared/engine/vectors/index.js";
import { embed } from "../../../shared/services/inference/embeddings.js";
import { embeddingModel } from "../../../shared/services/libraries/ingestion/vectors.js";
import * as libraries from "../../../shared/services/libraries/libraries.js";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { conversationEvents } from "../../support/conversations.js";
import { inferenceClient, usageRecordsOf } from "../../support/inference-client.js";

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);
const agents = agentsClient(api, tenant);

const REFUNDS = "Refunds are paid back to the card within fourteen days of the return";
const HOLIDAYS = "The office is closed on public holidays and on the first of May";

/** A library of the test's workspace holding one document whose chunks are `texts`, embedded offline. */
async function aLibraryHolding(caller: Caller, texts: string[]): Promise<{ id: string; documentId: string }> {
  const library = await libraries.create(caller, { name: "Policies" });
  const ctx = { caller, requestId: randomUUID(), route: "test indexing" };
  const answer = await embed(ctx, { model: await embeddingModel(ctx), input: texts, output_dtype: "float", encoding_format: "float" });
  if (answer.kind !== "answer") throw new Error("embeddings answered with a stream");
  const documentId = randomUUID();
  await (await vectorStore()).upsert(
    caller.workspace,
    library.id,
    texts.map((text, chunkIndex) => ({ documentId, chunkIndex, text, documentName: "policies.txt", mimeType: "text/plain", createdAt: 1_700_000_000, vector: answer.body.data[chunkIndex]!.embedding as number[] })),
  );
  return { id: library.id, documentId };
}

/** The request's usage records once there are `count` of them. */
async function usageOf(requestId: string, count: number): Promise<UsageRecord[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const records = await usageRecordsOf(tenant.caller.workspace, requestId);
    if (records.length >= count || Date.now() > deadline) return records;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The trace's spans once there are `count` of them (they are written after the answer). */
async function spansOf(trace: string, count: number): Promise<Record<string, any>[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const reply = await client.request("GET", `/v1/observability/traces/${trace}/spans`);
    const spans = reply.status === 200 ? (reply.body.spans.results as Record<string, any>[]) : [];
    if (spans.length >= count || Date.now() > deadline) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the document_library tool: POST /v1/conversations", () => {
  it("searches the library, records a document_library execution, and the model quotes the chunks it read", async () => {
    const library = await aLibraryHolding(tenant.caller, [HOLIDAYS, REFUNDS]);

    const reply = await client.request("POST", "/v1/conversations", { json: { model: "mistral-small-latest", tools: [{ type: "document_library", library_ids: [library.id] }], inputs: "When are refunds paid?" } });

    expect(reply.status).toBe(200);
    const [execution, answer] = reply.body.outputs;
    expect(reply.body.outputs).toHaveLength(2);
    expect(execution).toMatchObject({
      type: "tool.execution",
      name: "document_library",
      arguments: expect.stringContaining('"query"'),
      info: { library_ids: [library.id], is_error: false, result: expect.stringContaining(REFUNDS), results: expect.arrayContaining([expect.objectContaining({ library_id: library.id, document_id: library.documentId, document_name: "policies.txt", score: expect.any(Number) })]) },
    });
    expect(execution.info.results).toHaveLength(2);
    expect(answer).toMatchObject({ type: "message.output", content: expect.stringContaining(REFUNDS) });
    expect(answer.content).toContain(`«${execution.info.result}»`);
    expect(reply.body.usage.connectors).toEqual({ document_library: 1 });
    // Two chat calls and the query's embedding between them, each a usage record of the turn's request.
    const records = await usageOf(reply.headers.get("x-request-id")!, 3);
    expect(records.map((r) => [r.call, r.model]).sort()).toEqual([
      [1, "mistral-small-latest"],
      [2, "mistral-embed"],
      [3, "mistral-small-latest"],
    ]);
  });

  it("spans the query's embedding under the tool's execute_tool span, in the caller's trace", async () => {
    const library = await aLibraryHolding(tenant.caller, [REFUNDS]);
    const trace = randomBytes(16).toString("hex");

    const reply = await client.request("POST", "/v1/conversations", {
      json: { model: "mistral-small-latest", tools: [{ type: "document_library", library_ids: [library.id] }], inputs: "When are refunds paid?" },
      headers: { traceparent: `00-${trace}-${randomBytes(8).toString("hex")}-01` },
    });

    expect(reply.status).toBe(200);
    const spans = await spansOf(trace, 5);
    const tool = spans.find((s) => s.operation_name === "execute_tool");
    expect(tool).toMatchObject({ tool_name: "document_library", conversation_id: reply.body.conversation_id });
    expect(spans.filter((s) => s.operation_name === "embeddings")).toEqual([expect.objectContaining({ parent_span_id: tool!.span_id, request_model: "mistral-embed", conversation_id: reply.body.conversation_id })]);
  });

  it("runs for an agent's tool, and keeps the execution in the history", async () => {
    const library = await aLibraryHolding(tenant.caller, [REFUNDS]);
    const agent = (await agents.create(anAgentRequest({ tools: [{ type: "document_library", library_ids: [library.id] }] }))).body;

    const reply = await client.request("POST", "/v1/conversations", { json: { agent_id: agent.id, inputs: "When are refunds paid?" } });

    expect(reply.status).toBe(200);
    expect(reply.body.outputs[1].content).toContain(REFUNDS);
    const history = await client.request("GET", `/v1/conversations/${reply.body.conversation_id}/history`);
    expect(history.body.entries.map((e: { type: string; name?: string }) => e.name ?? e.type)).toEqual(["message.input", "document_library", "message.output"]);
  });

  it("searches the libraries of several document_library tools through one function", async () => {
    const [first, second] = [await aLibraryHolding(tenant.caller, [HOLIDAYS]), await aLibraryHolding(tenant.caller, [REFUNDS])];

    const reply = await client.request("POST", "/v1/conversations", {
      json: { model: "mistral-small-latest", tools: [{ type: "document_library", library_ids: [first.id] }, { type: "document_library", library_ids: [second.id, first.id] }], inputs: "Anything?" },
    });

    expect(reply.status).toBe(200);
    expect(reply.body.outputs[0].info.library_ids).toEqual([first.id, second.id]);
    expect(reply.body.outputs[1].content).toContain(HOLIDAYS);
    expect(reply.body.outputs[1].content).toContain(REFUNDS);
  });

  it("streams the execution as tool.execution.started and tool.execution.done, then the quoted chunks", async () => {
    const library = await aLibraryHolding(tenant.caller, [REFUNDS]);

    const response = await fetch(`${api.url}/v1/conversations`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "mistral-small-latest", tools: [{ type: "document_library", library_ids: [library.id] }], inputs: "When are refunds paid?", stream: true }),
    });
    const events = conversationEvents(await response.text());

    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(events.map((e) => e.event).slice(0, 3)).toEqual(["conversation.response.started", "tool.execution.started", "tool.execution.done"]);
    expect(events[1]!.data).toMatchObject({ name: "document_library" });
    expect(events[2]!.data).toMatchObject({ name: "document_library", info: { result: expect.stringContaining(REFUNDS) } });
    const text = events.filter((e) => e.event === "message.output.delta").map((e) => e.data.content).join("");
    expect(text).toContain(REFUNDS);
    expect(events.at(-1)).toMatchObject({ event: "conversation.response.done", data: { usage: { connectors: { document_library: 1 } } } });
  });

  it("answers 404 naming a library the key may not see, before any model call", async () => {
    const unknown = randomUUID();

    const reply = await client.request("POST", "/v1/conversations", { json: { model: "mistral-small-latest", tools: [{ type: "document_library", library_ids: [unknown] }], inputs: "Hello" } });

    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ object: "error", code: "library_not_found", message: expect.stringContaining(unknown) });
    expect(await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!, 300)).toEqual([]);
  });
});
