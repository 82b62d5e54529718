/**
 * Chat and FIM end to end against a real (fake) OpenAI-compatible upstream: HTTP client → local API →
 * handler → provider → fake upstream, streamed frame by frame both ways.
 *
 * The upstream provider is configured through INFERENCE_PROVIDERS, which the registry reads when a provider
 * is first created and caches per process: it is set here before this file's first model call (this file
 * has its own module graph, so the cache starts empty) and restored afterwards.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registerFineTuned } from "../../../shared/services/models/catalog.js";
import { PROVIDERS_ENV } from "../../../shared/inference/registry.js";
import { useEmbeddedApi } from "../../support/api.js";
import { drop, json, ManualSse, sse, useFakeUpstream } from "../../support/fake-upstream.js";
import { chunksOf, inferenceClient, type SseFrame, streamedText, usageRecords, usageRecordsOf, userSays, within } from "../../support/inference-client.js";

const fake = useFakeUpstream();
const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);
/** The fine-tuned model of this test's workspace, served by the fake upstream as `fake-model`. */
let model: string;

beforeAll(() => {
  expect(JSON.parse(process.env[PROVIDERS_ENV]!).offline).toEqual({ type: "offline" });
});

beforeEach(async () => {
  model = `ft:codestral-latest:test:${randomUUID().slice(0, 8)}`;
  await registerFineTuned({ workspace: tenant.caller.workspace, id: model, root: "codestral-latest", provider: "upstream", upstream: "fake-model" });
});

/** The `n`th upstream request of this test (0-based), once it has arrived. */
const upstreamRequest = (n = 0) => fake.requestOfTest(n);

/** One chunk in the Mistral streaming format. */
const chunk = (content: string, finish: string | null = null, usage?: Record<string, number>) => ({
  id: "up-1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "fake-model",
  choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  ...(usage ? { usage } : {}),
});

const parsed = (frame: SseFrame | undefined) => JSON.parse(frame!.data!) as ReturnType<typeof chunksOf>[number];

describe("a model served by an upstream", () => {
  it("answers plain chat with the upstream's text and usage, sending the upstream its own model id", async () => {
    fake.reply(json({ id: "up", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "Bonjour!" }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }));
    const reply = await client.chat(userSays(model, "say hi", { temperature: 0.2 }));
    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("openai-compatible");
    expect(reply.body).toMatchObject({ model, choices: [{ message: { content: "Bonjour!" }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
    const request = await upstreamRequest();
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.body).toMatchObject({ model: "fake-model", stream: false, temperature: 0.2, messages: [{ role: "user", content: "say hi" }] });
  });

  it("streams the first frame to the client before the upstream has produced its last", async () => {
    const manual = new ManualSse();
    fake.reply(manual.reply);
    const pending = client.chatStream(userSays(model, "stream it"));
    await within(manual.opened, "the upstream request");
    await manual.send(chunk("Hello"));

    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/event-stream");
    expect(reply.headers.get("x-inference-backend")).toBe("openai-compatible");
    const [role, first] = await reply.reader!.take(2);
    expect(parsed(role).choices).toEqual([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    expect(parsed(first).choices).toEqual([{ index: 0, delta: { content: "Hello" }, finish_reason: null }]);

    // Still mid-stream upstream: the next piece is relayed on its own.
    await manual.send(chunk(", world"));
    expect(parsed((await reply.reader!.take(1))[0]).choices[0]!.delta).toEqual({ content: ", world" });

    await manual.send(chunk("!", "stop", { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }));
    await manual.end();
    const rest = await reply.reader!.rest();
    expect(rest.at(-1)!.data).toBe("[DONE]");
    const all = chunksOf(reply.reader!.seen);
    expect(streamedText(all)).toBe("Hello, world!");
    expect(all.at(-1)).toMatchObject({ model, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
    for (const frame of reply.reader!.seen) expect(frame.fields.every((f) => f === "data")).toBe(true);

    const request = await upstreamRequest();
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.body).toMatchObject({ model: "fake-model", stream: true, messages: [{ role: "user", content: "stream it" }] });
  });

  it("streams FIM from the upstream's native FIM endpoint", async () => {
    fake.reply(sse([chunk("return "), chunk("fib(n - 1)"), chunk(" + fib(n - 2)", "stop")], { delayMs: 10 }));
    const streamed = await client.fimStreamed({ model, prompt: "def fib(n):\n    ", suffix: "\n" });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toBe("return fib(n - 1) + fib(n - 2)");
    expect(streamed.frames.at(-1)!.data).toBe("[DONE]");
    expect(streamed.chunks.at(-1)!.choices).toEqual([{ index: 0, delta: {}, finish_reason: "stop" }]);
    const request = await upstreamRequest();
    expect(request.path).toBe("/v1/fim/completions");
    expect(request.body).toMatchObject({ model: "fake-model", prompt: "def fib(n):\n    ", suffix: "\n", stream: true });
  });

  describe("an upstream failure before the first byte is a normal JSON error, not a 200 stream", () => {
    it("401 (our key refused) → 502, recorded as 502", async () => {
      fake.reply(json({ message: "Unauthorized" }, { status: 401 }));
      const reply = await client.chatStream(userSays(model, "hi"));
      expect(reply.status).toBe(502);
      expect(reply.reader).toBeUndefined();
      expect(reply.headers.get("content-type")).toBe("application/json");
      expect(reply.body).toMatchObject({ object: "error", type: "server_error", code: "upstream_error" });
      expect(reply.body.message).toContain("credentials");
      const records = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ model, route: "POST /v1/chat/completions", status: 502, promptTokens: 0, completionTokens: 0, backend: "openai-compatible" });
    });

    it("429 (throttled) → 429 with the upstream's message, recorded as 429", async () => {
      fake.reply(json({ message: "Requests rate limit exceeded" }, { status: 429, headers: { "retry-after": "7" } }));
      const reply = await client.chatStream(userSays(model, "hi"));
      expect(reply.status).toBe(429);
      expect(reply.reader).toBeUndefined();
      expect(reply.headers.get("content-type")).toBe("application/json");
      expect(reply.body).toMatchObject({ type: "rate_limit_error", code: "upstream_error" });
      expect(reply.body.message).toContain("Requests rate limit exceeded");
      expect(reply.headers.get("retry-after")).toBe("7");
      const records = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
      expect(records.map((r) => r.status)).toEqual([429]);
    });

    it("400 (request refused upstream) → 400 with the upstream's message", async () => {
      fake.reply(json({ object: "error", message: "temperature out of range for this model" }, { status: 422 }));
      const reply = await client.fimStream({ model, prompt: "x" });
      expect(reply.status).toBe(400);
      expect(reply.headers.get("content-type")).toBe("application/json");
      expect(reply.body).toMatchObject({ type: "invalid_request_error", code: "upstream_error" });
      expect(reply.body.message).toContain("temperature out of range");
    });

    it("a connection closed without an answer → 502", async () => {
      fake.reply(drop());
      const reply = await client.chatStream(userSays(model, "hi"));
      expect(reply.status).toBe(502);
      expect(reply.headers.get("content-type")).toBe("application/json");
      expect(reply.body).toMatchObject({ type: "server_error", code: "upstream_error" });
    });

    it("the same failure on a plain call is the same status", async () => {
      fake.reply(json({ message: "Unauthorized" }, { status: 401 }));
      const reply = await client.chat(userSays(model, "hi"));
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({ type: "server_error", code: "upstream_error" });
    });
  });

  it("ends the client's stream with finish_reason error and [DONE] when the upstream drops mid-stream", async () => {
    const manual = new ManualSse();
    fake.reply(manual.reply);
    const pending = client.chatStream(userSays(model, "this will break"));
    await within(manual.opened, "the upstream request");
    await manual.send(chunk("partial"));
    const reply = await pending;
    expect(reply.status).toBe(200);
    await reply.reader!.take(2);

    manual.cut();
    const rest = await reply.reader!.rest();
    expect(rest.map((f) => f.data === "[DONE]")).toEqual([false, true]);
    expect(parsed(rest[0])).toMatchObject({ model, choices: [{ index: 0, delta: {}, finish_reason: "error" }] });
    expect(parsed(rest[0]).usage).toBeDefined();
    expect(streamedText(chunksOf(reply.reader!.seen))).toBe("partial");

    const records = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ model, status: "stream_error", backend: "openai-compatible" });
  });

  it("aborts the upstream request when the client goes away mid-stream", async () => {
    const manual = new ManualSse();
    fake.reply(manual.reply);
    const controller = new AbortController();
    const pending = client.chatStream(userSays(model, "I will hang up"), { signal: controller.signal });
    await within(manual.opened, "the upstream request");
    await manual.send(chunk("still "));
    const reply = await pending;
    expect(reply.status).toBe(200);
    await reply.reader!.take(2);
    const upstream = await upstreamRequest();

    let disconnected = false;
    void upstream.disconnected.then(() => (disconnected = true));
    await manual.send(chunk("talking"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(disconnected).toBe(false);

    controller.abort();
    await within(upstream.disconnected, "the upstream connection to close after the client aborted");
    const records = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ model, route: "POST /v1/chat/completions", status: "stream_error" });
  });

  it("aborts the upstream request when the client goes away before the first byte", async () => {
    const manual = new ManualSse();
    fake.reply(manual.reply);
    const controller = new AbortController();
    const pending = client.chatStream(userSays(model, "never mind"), { signal: controller.signal });
    await within(manual.opened, "the upstream request");
    const upstream = await upstreamRequest();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await within(upstream.disconnected, "the upstream connection to close after the client aborted");
    // Recorded as the client's doing (499), never as a server error.
    const deadline = Date.now() + 5000;
    let statuses: unknown[] = [];
    while (Date.now() < deadline && !statuses.includes(499)) {
      statuses = (await usageRecords(tenant.caller.workspace)).map((r) => r.status);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(statuses).toContain(499);
    expect(statuses).not.toContain(500);
  });
});
