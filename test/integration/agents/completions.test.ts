/**
 * POST /v1/agents/completions against the offline provider: the agent's current version picks the model,
 * its instructions go first, its completion_args sit under the request's, and the answer (plain or
 * streamed) is the chat route's.
 */
import { describe, expect, it } from "vitest";
import { countTokens } from "../../../shared/inference/tokenizer.js";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { contextLengthOf, offlineEcho, usageRecordsOf } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const client = agentsClient(api, tenant);

const says = (agentId: string, content: string, extra: Record<string, unknown> = {}) => ({ agent_id: agentId, messages: [{ role: "user", content }], ...extra });

const lookupTool = {
  type: "function",
  function: { name: "lookup_order", description: "Finds an order", parameters: { type: "object", properties: { order_id: { type: "string", enum: ["A-1"] } }, required: ["order_id"] } },
};

async function anAgent(extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await client.create(anAgentRequest(extra));
  expect(reply.status).toBe(200);
  return reply.body.id;
}

describe("POST /v1/agents/completions", () => {
  it("answers the chat completion of the agent's model: the echo of the request's last user message", async () => {
    const id = await anAgent({ model: "mistral-large" });

    const reply = await client.complete({
      agent_id: id,
      messages: [
        { role: "user", content: "first question" },
        { role: "assistant", content: "first answer" },
        { role: "user", content: "where is my order?" },
      ],
    });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
    expect(reply.body).toMatchObject({
      object: "chat.completion",
      model: "mistral-large-latest",
      choices: [{ index: 0, message: { role: "assistant", content: offlineEcho("where is my order?"), tool_calls: null }, finish_reason: "stop" }],
    });
    expect(reply.body.id).toMatch(/^cmpl-/);
    expect(reply.body.usage.total_tokens).toBe(reply.body.usage.prompt_tokens + reply.body.usage.completion_tokens);
  });

  it("puts the agent's instructions into the prompt, counted once", async () => {
    const plain = await anAgent();
    const instructed = await anAgent({ instructions: "You answer questions about orders, politely and briefly." });

    const without = (await client.complete(says(plain, "where is my order?"))).body.usage.prompt_tokens;
    const withInstructions = (await client.complete(says(instructed, "where is my order?"))).body.usage.prompt_tokens;

    expect(without).toBe(countTokens("tekken", "where is my order?"));
    expect(withInstructions).toBe(countTokens("tekken", "You answer questions about orders, politely and briefly.\nwhere is my order?"));
  });

  it("uses the current version: after a PATCH or a version switch, that version's model and arguments", async () => {
    const id = await anAgent({ model: "mistral-small-latest" });
    await client.update(id, { model: "codestral-latest" });
    expect((await client.complete(says(id, "hi"))).body.model).toBe("codestral-latest");

    await client.switchVersion(id, 1);
    expect((await client.complete(says(id, "hi"))).body.model).toBe("mistral-small-latest");
  });

  describe("completion_args", () => {
    it("applies the agent's when the request does not set them (response_format, max_tokens)", async () => {
      const json = await anAgent({ completion_args: { response_format: { type: "json_object" } } });
      const reply = await client.complete(says(json, "in JSON please"));
      expect(JSON.parse(reply.body.choices[0].message.content)).toEqual({ offline: true, echo: "in JSON please" });

      const short = await anAgent({ completion_args: { max_tokens: 3 } });
      const cut = await client.complete(says(short, "tell me a long story"));
      expect(cut.body.choices[0].finish_reason).toBe("length");
      expect(cut.body.usage.completion_tokens).toBeLessThanOrEqual(3);
    });

    it("lets the request's own values win over the agent's", async () => {
      const id = await anAgent({ completion_args: { response_format: { type: "json_object" }, max_tokens: 3 } });

      const reply = await client.complete(says(id, "tell me a long story", { response_format: { type: "text" }, max_tokens: 200 }));

      expect(reply.body.choices[0]).toMatchObject({ message: { content: offlineEcho("tell me a long story") }, finish_reason: "stop" });
    });

    it("gives the model the agent's function tools and tool_choice", async () => {
      const id = await anAgent({ tools: [lookupTool, { type: "web_search" }], completion_args: { tool_choice: "any" } });

      const reply = await client.complete(says(id, "where is A-1?"));

      expect(reply.status).toBe(200);
      expect(reply.body.choices[0]).toMatchObject({
        finish_reason: "tool_calls",
        message: { tool_calls: [{ type: "function", function: { name: "lookup_order", arguments: JSON.stringify({ order_id: "A-1" }) } }] },
      });
      const none = await client.complete(says(id, "where is A-1?", { tool_choice: "none" }));
      expect(none.body.choices[0].message.content).toBe(offlineEcho("where is A-1?"));
    });
  });

  it("answers n choices and bills the prompt once", async () => {
    const id = await anAgent();

    const reply = await client.complete(says(id, "twice", { n: 2 }));

    expect(reply.body.choices.map((c: { index: number }) => c.index)).toEqual([0, 1]);
    expect(reply.body.usage.prompt_tokens).toBe(countTokens("tekken", "twice"));
  });

  it("refuses prompt tokens plus max_tokens over the context length with 400, from the request or the agent", async () => {
    const id = await anAgent();
    const over = await client.complete(says(id, "hello", { max_tokens: contextLengthOf("mistral-small-latest") }));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ type: "invalid_request_error", code: "context_length_exceeded", param: "max_tokens" });

    const greedy = await anAgent({ completion_args: { max_tokens: contextLengthOf("mistral-small-latest") + 1 } });
    expect((await client.complete(says(greedy, "hello"))).status).toBe(400);
    const streamed = await client.stream(says(greedy, "hello"));
    expect(streamed.status).toBe(400);
    expect(streamed.body).toMatchObject({ code: "context_length_exceeded" });
  });

  it("answers 404 for an unknown agent or another workspace's, and 422 for a malformed request", async () => {
    const theirs = (await agentsClient(api, await newTenant()).create(anAgentRequest())).body.id;
    expect((await client.complete(says(theirs, "hi"))).status).toBe(404);
    expect((await client.complete(says("3b241101-e2bb-4255-8caf-4136c566a962", "hi"))).status).toBe(404);

    const id = await anAgent();
    for (const body of [
      { messages: [{ role: "user", content: "hi" }] },
      { agent_id: id, messages: [] },
      says(id, "hi", { temperature: 0.5 }),
      says(id, "hi", { service_tier: "gold" }),
      says(id, "hi", { reasoning_effort: "extreme" }),
      says(id, "hi", { n: 0 }),
    ]) {
      const reply = await client.complete(body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
    }
  });

  it("accepts every field of the spec's request", async () => {
    const id = await anAgent();

    const reply = await client.complete(
      says(id, "everything", {
        max_tokens: 50,
        stream: false,
        stop: ["never"],
        random_seed: 1,
        metadata: { trace: "x" },
        response_format: { type: "text" },
        tools: [lookupTool, { type: "code_interpreter" }],
        tool_choice: "auto",
        presence_penalty: 0.1,
        frequency_penalty: 0.1,
        n: 1,
        prediction: { type: "content", content: "" },
        parallel_tool_calls: false,
        reasoning_effort: "low",
        prompt_mode: "reasoning",
        guardrails: [{ block_on_error: false }],
        prompt_cache_key: "k",
        service_tier: "auto",
      }),
    );

    expect(reply.status).toBe(200);
    // tool_choice auto with a function tool offered: the offline model's first turn calls it.
    expect(reply.body.choices[0]).toMatchObject({ finish_reason: "tool_calls", message: { tool_calls: [{ function: { name: lookupTool.function.name } }] } });
  });

  it("writes a usage record under the agents route", async () => {
    const id = await anAgent();

    const reply = await client.complete(says(id, "count me"));

    const records = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ route: "POST /v1/agents/completions", model: "mistral-small-latest", status: 200, promptTokens: reply.body.usage.prompt_tokens });
  });

  describe("stream: true", () => {
    it("streams data-only events ending with data: [DONE], carrying the same text as the plain answer", async () => {
      const id = await anAgent({ instructions: "Be brief." });

      const streamed = await client.streamed(says(id, "stream it"));

      expect(streamed.status).toBe(200);
      expect(streamed.headers.get("content-type")).toBe("text/event-stream");
      for (const frame of streamed.frames) {
        expect(frame.terminated).toBe(true);
        expect(frame.fields.every((f) => f === "data")).toBe(true);
      }
      expect(streamed.frames.at(-1)!.data).toBe("[DONE]");
      expect(streamed.text).toBe(offlineEcho("stream it"));
      expect(streamed.chunks[0]!.choices).toEqual([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
      const last = streamed.chunks.at(-1)!;
      expect(last).toMatchObject({ object: "chat.completion.chunk", model: "mistral-small-latest", choices: [{ finish_reason: "stop" }] });
      expect(last.usage!.prompt_tokens).toBe(countTokens("tekken", "Be brief.\nstream it"));
    });

    it("answers a JSON 404 for an unknown agent instead of a stream", async () => {
      const reply = await client.stream(says("3b241101-e2bb-4255-8caf-4136c566a962", "hi"));
      expect(reply.status).toBe(404);
      expect(reply.reader).toBeUndefined();
      expect(reply.headers.get("content-type")).toBe("application/json");
    });
  });
});
