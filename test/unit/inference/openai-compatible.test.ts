import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OpenAICompatibleProvider, type OpenAICompatibleConfig } from "../../../shared/inference/providers/openai-compatible.js";
import { UnsupportedByProvider, UpstreamError, type CompletionEvent } from "../../../shared/inference/types.js";
import { ChatCompletionRequest, FimCompletionRequest } from "../../../shared/schemas/inference.js";
import { FakeUpstream, ManualSse, drop, hang, json, sse, text } from "../../support/fake-upstream.js";

/** Tests that wait on a stream fail after this instead of the 30 s default. */
const FAST_FAIL_MS = 5000;

let upstream: FakeUpstream;

beforeEach(async () => {
  upstream = await FakeUpstream.start();
});

afterEach(async () => {
  await upstream.close();
});

const provider = (config: Partial<OpenAICompatibleConfig> = {}) => new OpenAICompatibleProvider({ baseUrl: upstream.url, ...config });
const chatRequest = (extra: Record<string, unknown> = {}) =>
  ChatCompletionRequest.parse({ model: "up-model", messages: [{ role: "user", content: "Hi" }], ...extra });
const fimRequest = (extra: Record<string, unknown> = {}) => FimCompletionRequest.parse({ model: "up-fim", prompt: "def f(", ...extra });

const completion = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  json({ id: "up-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }], ...extra });
const chunk = (delta: Record<string, unknown>, finish: string | null = null, index = 0) => ({
  id: "up-1",
  object: "chat.completion.chunk",
  choices: [{ index, delta, finish_reason: finish }],
});

async function collect(events: AsyncIterable<CompletionEvent>): Promise<CompletionEvent[]> {
  const out: CompletionEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

const body = (n = 0) => upstream.requests[n]?.body as Record<string, unknown>;

describe("chat request (openai dialect)", () => {
  it("POSTs JSON to /v1/chat/completions under the base URL", async () => {
    upstream.reply(completion({ content: "ok" }));
    await provider({ baseUrl: `${upstream.url}/` }).chat(chatRequest(), {});
    expect(upstream.requests[0]).toMatchObject({ method: "POST", path: "/v1/chat/completions", headers: { "content-type": "application/json" } });
  });

  it("renames random_seed to seed", async () => {
    upstream.reply(completion({ content: "ok" }));
    await provider().chat(chatRequest({ random_seed: 7 }), {});
    expect(body()).toMatchObject({ seed: 7 });
    expect(body()).not.toHaveProperty("random_seed");
  });

  it("maps tool_choice any to required", async () => {
    upstream.reply(completion({ content: "ok" }));
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }];
    await provider().chat(chatRequest({ tools, tool_choice: "any" }), {});
    expect(body()).toMatchObject({ tool_choice: "required", tools: [{ function: { name: "f" } }], parallel_tool_calls: true });
  });

  it("drops the Mistral-only fields", async () => {
    upstream.reply(completion({ content: "ok" }));
    const mistralOnly = {
      safe_prompt: true,
      prompt_mode: "reasoning",
      prediction: { type: "content", content: "x" },
      guardrails: [{ kind: "x" }],
      reasoning_effort: "high",
      service_tier: "priority",
      metadata: { a: 1 },
    };
    await provider().chat(chatRequest({ ...mistralOnly, temperature: 0.2, max_tokens: 5, stop: ["\n"] }), {});
    for (const field of Object.keys(mistralOnly)) expect(body()).not.toHaveProperty(field);
    expect(body()).toMatchObject({ model: "up-model", temperature: 0.2, max_tokens: 5, stop: ["\n"] });
  });

  it("passes prompt_cache_key on, which OpenAI's API takes too (routes the call to a server holding the prefix)", async () => {
    upstream.reply(completion({ content: "ok" }));
    await provider().chat(chatRequest({ prompt_cache_key: "tenant-42" }), {});
    expect(body().prompt_cache_key).toBe("tenant-42");
  });

  it("always sends stream false on a plain chat", async () => {
    upstream.reply(completion({ content: "ok" }));
    await provider().chat(chatRequest({ stream: true }), {});
    expect(body().stream).toBe(false);
  });

  it("leaves out null fields and tool settings when there are no tools", async () => {
    upstream.reply(completion({ content: "ok" }));
    await provider().chat(chatRequest({ temperature: null, tool_choice: "auto" }), {});
    expect(body()).toStrictEqual({ model: "up-model", messages: [{ role: "user", content: "Hi" }], stream: false });
  });

  it("sends assistant tool-call arguments as JSON text and leaves out prefix false", async () => {
    upstream.reply(completion({ content: "ok" }));
    const messages = [
      { role: "user", content: "weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "abc123def", function: { name: "get", arguments: { city: "Paris" } } }] },
      { role: "tool", content: "sunny", tool_call_id: "abc123def" },
    ];
    await provider().chat(chatRequest({ messages }), {});
    expect(body().messages).toStrictEqual([
      { role: "user", content: "weather?" },
      { role: "assistant", tool_calls: [{ id: "abc123def", type: "function", function: { name: "get", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", content: "sunny", tool_call_id: "abc123def" },
    ]);
  });
});

describe("chat request (mistral dialect)", () => {
  it("passes the Mistral body through unchanged apart from stream", async () => {
    upstream.reply(completion({ content: "ok" }));
    const request = chatRequest({ random_seed: 7, tool_choice: "any", safe_prompt: true, prompt_mode: "reasoning", stream: true });
    await provider({ dialect: "mistral" }).chat(request, {});
    expect(body()).toStrictEqual({ ...JSON.parse(JSON.stringify(request)), stream: false });
  });

  it("does not pass guardrails on: the platform ran them before the call (docs/routing.md, \"Guardrails\")", async () => {
    upstream.reply(completion({ content: "ok" }));

    await provider({ dialect: "mistral" }).chat(chatRequest({ guardrails: [{ moderation_llm_v2: { action: "block" } }] }), {});

    expect(body()).not.toHaveProperty("guardrails");
    expect(body()).toMatchObject({ model: "up-model", messages: [{ role: "user", content: "Hi" }] });
  });
});

describe("API key", () => {
  const KEY_ENV = "FAKE_UPSTREAM_TEST_KEY";
  afterEach(() => {
    delete process.env[KEY_ENV];
  });

  it("sends the key from the named env var as a Bearer token, read at call time", async () => {
    const configured = provider({ apiKeyEnv: KEY_ENV });
    process.env[KEY_ENV] = "sk-secret-1";
    upstream.reply(completion({ content: "ok" }));
    await configured.chat(chatRequest(), {});
    expect(upstream.requests[0]?.headers.authorization).toBe("Bearer sk-secret-1");
  });

  it("sends no Authorization header when no key env var is configured", async () => {
    upstream.reply(completion({ content: "ok" }));
    await provider().chat(chatRequest(), {});
    expect(upstream.requests[0]?.headers).not.toHaveProperty("authorization");
  });
});

describe("chat response", () => {
  it("maps content, finish reason and usage", async () => {
    upstream.reply(completion({ content: "Hello!" }, { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }));
    expect(await provider().chat(chatRequest(), {})).toStrictEqual({
      choices: [{ content: "Hello!", toolCalls: [], finishReason: "stop" }],
      usage: { promptTokens: 3, completionTokens: 2 },
    });
  });

  it.each([
    ["OpenAI's prompt_tokens_details", { prompt_tokens: 1200, completion_tokens: 2, total_tokens: 1202, prompt_tokens_details: { cached_tokens: 1024 } }],
    ["Mistral's num_cached_tokens", { prompt_tokens: 1200, completion_tokens: 2, total_tokens: 1202, num_cached_tokens: 1024 }],
  ])("reads the cached prompt tokens from %s", async (_, usage) => {
    upstream.reply(completion({ content: "Hello!" }, { usage }));
    expect((await provider().chat(chatRequest(), {})).usage).toStrictEqual({ promptTokens: 1200, completionTokens: 2, cachedTokens: 1024 });
  });

  it("leaves usage out when the upstream sends none", async () => {
    upstream.reply(completion({ content: "Hello!" }));
    expect(await provider().chat(chatRequest(), {})).not.toHaveProperty("usage");
  });

  it("concatenates the text of content-chunk arrays", async () => {
    upstream.reply(
      completion({
        content: [
          { type: "thinking", thinking: [{ type: "text", text: "hmm" }] },
          { type: "text", text: "Hel" },
          { type: "text", text: "lo" },
        ],
      }),
    );
    expect((await provider().chat(chatRequest(), {})).choices[0]?.content).toBe("Hello");
  });

  it("maps tool calls", async () => {
    upstream.reply(
      json({
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get", arguments: '{"city":"Paris"}' } }] },
            finish_reason: "tool_calls",
          },
        ],
      }),
    );
    expect((await provider().chat(chatRequest(), {})).choices).toStrictEqual([
      { content: "", toolCalls: [{ id: "call_1", type: "function", function: { name: "get", arguments: '{"city":"Paris"}' } }], finishReason: "tool_calls" },
    ]);
  });

  it.each([
    ["stop", "stop"],
    ["length", "length"],
    ["tool_calls", "tool_calls"],
    ["content_filter", "error"],
    ["eos_token", "stop"],
    [null, "stop"],
  ])("maps finish_reason %s to %s", async (upstreamReason, reason) => {
    upstream.reply(json({ choices: [{ index: 0, message: { role: "assistant", content: "x" }, finish_reason: upstreamReason }] }));
    expect((await provider().chat(chatRequest(), {})).choices[0]?.finishReason).toBe(reason);
  });

  it("orders several choices by index", async () => {
    upstream.reply(
      json({
        choices: [
          { index: 1, message: { role: "assistant", content: "second" }, finish_reason: "stop" },
          { index: 0, message: { role: "assistant", content: "first" }, finish_reason: "length" },
        ],
      }),
    );
    const result = await provider().chat(chatRequest({ n: 2 }), {});
    expect(result.choices.map((c) => c.content)).toStrictEqual(["first", "second"]);
  });

  it("turns a body that is not JSON into a 502", async () => {
    upstream.reply(text("<html>gateway</html>"));
    expect(await failure(provider().chat(chatRequest(), {}))).toMatchObject({ name: "UpstreamError", status: 502 });
  });

  it("does not follow a redirect: the prompt goes nowhere but the configured upstream, the caller gets a 502", async () => {
    upstream.reply(json({ moved: true }, { status: 307, headers: { location: `${upstream.url}/elsewhere` } }), completion({ content: "followed" }));

    expect(await failure(provider().chat(chatRequest(), {}))).toMatchObject({ name: "UpstreamError", status: 502 });
    expect(upstream.requests.map((r) => r.path)).toStrictEqual(["/v1/chat/completions"]);
  });
});

describe("chat streaming", () => {
  it("asks for a stream with usage included (openai dialect)", async () => {
    upstream.reply(sse([chunk({ content: "a" }, "stop")]));
    await collect(provider().chatStream(chatRequest(), {}));
    expect(body()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(upstream.requests[0]?.headers.accept).toBe("text/event-stream");
  });

  it("sends the Mistral body with stream true and no stream_options (mistral dialect)", async () => {
    upstream.reply(sse([chunk({ content: "a" }, "stop")]));
    await collect(provider({ dialect: "mistral" }).chatStream(chatRequest({ random_seed: 1 }), {}));
    expect(body()).toMatchObject({ stream: true, random_seed: 1 });
    expect(body()).not.toHaveProperty("stream_options");
  });

  it("yields a delta per content piece in order, then the finish", async () => {
    upstream.reply(sse([chunk({ role: "assistant", content: "" }), chunk({ content: "Hel" }), chunk({ content: "lo" }), chunk({}, "length")]));
    expect(await collect(provider().chatStream(chatRequest(), {}))).toStrictEqual([
      { type: "delta", index: 0, content: "Hel" },
      { type: "delta", index: 0, content: "lo" },
      { type: "finish", index: 0, reason: "length" },
    ]);
  });

  it("yields the first delta before the upstream has sent its last frame", async () => {
    const manual = new ManualSse();
    upstream.reply(manual.reply);
    const events = provider().chatStream(chatRequest(), {})[Symbol.asyncIterator]();
    const first = events.next();
    await manual.opened;
    await manual.send(chunk({ content: "first" }));
    const outcome = await Promise.race([first, new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2000))]);
    expect(outcome).toStrictEqual({ done: false, value: { type: "delta", index: 0, content: "first" } });
    await manual.send(chunk({ content: "second" }, "stop"));
    await manual.end();
    const rest: CompletionEvent[] = [];
    for (let next = await events.next(); !next.done; next = await events.next()) rest.push(next.value);
    expect(rest).toStrictEqual([
      { type: "delta", index: 0, content: "second" },
      { type: "finish", index: 0, reason: "stop" },
    ]);
  }, FAST_FAIL_MS);

  it("accumulates tool-call fragments by index and yields complete calls when the choice finishes", async () => {
    upstream.reply(
      sse([
        chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get", arguments: "" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
        chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "put", arguments: "{}" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Paris"}' } }] }),
        chunk({}, "tool_calls"),
      ]),
    );
    expect(await collect(provider().chatStream(chatRequest(), {}))).toStrictEqual([
      {
        type: "delta",
        index: 0,
        toolCalls: [
          { id: "call_a", type: "function", function: { name: "get", arguments: '{"city":"Paris"}' }, index: 0 },
          { id: "call_b", type: "function", function: { name: "put", arguments: "{}" }, index: 1 },
        ],
      },
      { type: "finish", index: 0, reason: "tool_calls" },
    ]);
  });

  it("yields a usage event for a chunk that carries usage", async () => {
    upstream.reply(sse([chunk({ content: "a" }, "stop"), { id: "up-1", choices: [], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } }]));
    const events = await collect(provider().chatStream(chatRequest(), {}));
    expect(events.at(-1)).toStrictEqual({ type: "usage", promptTokens: 4, completionTokens: 1 });
  });

  it("maps a streamed content_filter finish to error", async () => {
    upstream.reply(sse([chunk({ content: "a" }, "content_filter")]));
    const events = await collect(provider().chatStream(chatRequest(), {}));
    expect(events.at(-1)).toStrictEqual({ type: "finish", index: 0, reason: "error" });
  });

  it("keeps the events of several choices apart", async () => {
    upstream.reply(sse([chunk({ content: "a" }, null, 0), chunk({ content: "b" }, null, 1), chunk({}, "stop", 1), chunk({}, "stop", 0)]));
    expect(await collect(provider().chatStream(chatRequest({ n: 2 }), {}))).toStrictEqual([
      { type: "delta", index: 0, content: "a" },
      { type: "delta", index: 1, content: "b" },
      { type: "finish", index: 1, reason: "stop" },
      { type: "finish", index: 0, reason: "stop" },
    ]);
  });

  it("stops reading at data: [DONE]", async () => {
    upstream.reply(sse([chunk({ content: "a" }, "stop"), "data: [DONE]\n\n", "data: {not json\n\n"], { done: false }));
    expect(await collect(provider().chatStream(chatRequest(), {}))).toStrictEqual([
      { type: "delta", index: 0, content: "a" },
      { type: "finish", index: 0, reason: "stop" },
    ]);
  });

  it("ends cleanly when the upstream closes the stream without [DONE]", async () => {
    upstream.reply(sse([chunk({ content: "a" }), chunk({}, "stop")], { done: false }));
    expect(await collect(provider().chatStream(chatRequest(), {}))).toStrictEqual([
      { type: "delta", index: 0, content: "a" },
      { type: "finish", index: 0, reason: "stop" },
    ]);
  });

  it("finishes a choice the upstream never finished as stop", async () => {
    upstream.reply(sse([chunk({ content: "a" })]));
    const events = await collect(provider().chatStream(chatRequest(), {}));
    expect(events.at(-1)).toStrictEqual({ type: "finish", index: 0, reason: "stop" });
  });

  it("tolerates CRLF line ends, comments and frames split across writes", async () => {
    const frame = `data: ${JSON.stringify(chunk({ content: "héllo" }))}\r\n\r\n`;
    upstream.reply(
      sse([": keep-alive\r\n\r\n", "event: message\r\n", frame.slice(0, 20), frame.slice(20, -1), frame.slice(-1), `data: ${JSON.stringify(chunk({}, "stop"))}\r\n\r\n`], {
        delayMs: 5,
      }),
    );
    expect(await collect(provider().chatStream(chatRequest(), {}))).toStrictEqual([
      { type: "delta", index: 0, content: "héllo" },
      { type: "finish", index: 0, reason: "stop" },
    ]);
  });

  it("throws a 502 on a malformed JSON chunk", async () => {
    upstream.reply(sse([chunk({ content: "a" }), "data: {oops\n\n"]));
    expect(await failure(collect(provider().chatStream(chatRequest(), {})))).toMatchObject({ name: "UpstreamError", status: 502 });
  });

  it("throws a 502 carrying the message of an error sent mid-stream", async () => {
    upstream.reply(sse([chunk({ content: "a" }), { error: { message: "engine crashed", code: 500 } }]));
    const error = await failure(collect(provider().chatStream(chatRequest(), {})));
    expect(error).toMatchObject({ name: "UpstreamError", status: 502 });
    expect((error as Error).message).toContain("engine crashed");
  });

  it("throws a 502 when the upstream drops the connection mid-stream", async () => {
    const manual = new ManualSse();
    upstream.reply(manual.reply);
    const events = provider().chatStream(chatRequest(), {})[Symbol.asyncIterator]();
    const first = events.next();
    await manual.opened;
    await manual.send(chunk({ content: "a" }));
    await first;
    manual.cut();
    expect(await failure(events.next())).toMatchObject({ name: "UpstreamError", status: 502 });
  }, FAST_FAIL_MS);
});

describe("FIM", () => {
  it("uses /v1/fim/completions with the Mistral fields (mistral dialect)", async () => {
    upstream.reply(completion({ content: "x): pass" }));
    await provider({ dialect: "mistral" }).fim(fimRequest({ suffix: "\n", max_tokens: 9, min_tokens: 1, random_seed: 3, stop: ["\n\n"], temperature: 0 }), {});
    expect(upstream.requests[0]?.path).toBe("/v1/fim/completions");
    expect(body()).toStrictEqual({
      model: "up-fim",
      prompt: "def f(",
      suffix: "\n",
      max_tokens: 9,
      min_tokens: 1,
      random_seed: 3,
      stop: ["\n\n"],
      temperature: 0,
      stream: false,
    });
  });

  it("maps the native FIM answer like a chat completion (mistral dialect)", async () => {
    upstream.reply(completion({ content: "x): pass" }));
    const result = await provider({ dialect: "mistral" }).fim(fimRequest(), {});
    expect(result.choices).toStrictEqual([{ content: "x): pass", toolCalls: [], finishReason: "stop" }]);
  });

  it("uses /v1/completions with prompt and suffix (openai dialect)", async () => {
    upstream.reply(json({ choices: [{ index: 0, text: "x): pass", finish_reason: "length" }] }));
    await provider().fim(fimRequest({ suffix: "\n", random_seed: 3, min_tokens: 1, max_tokens: 9 }), {});
    expect(upstream.requests[0]?.path).toBe("/v1/completions");
    expect(body()).toStrictEqual({ model: "up-fim", prompt: "def f(", suffix: "\n", max_tokens: 9, seed: 3, stream: false });
  });

  it("maps choices[].text of /v1/completions to content (openai dialect)", async () => {
    upstream.reply(json({ choices: [{ index: 0, text: "x): pass", finish_reason: "length" }], usage: { prompt_tokens: 3, completion_tokens: 4 } }));
    expect(await provider().fim(fimRequest({ suffix: "\n" }), {})).toStrictEqual({
      choices: [{ content: "x): pass", toolCalls: [], finishReason: "length" }],
      usage: { promptTokens: 3, completionTokens: 4 },
    });
  });

  it("streams text deltas from /v1/completions (openai dialect)", async () => {
    upstream.reply(sse([{ choices: [{ index: 0, text: "x)", finish_reason: null }] }, { choices: [{ index: 0, text: ": pass", finish_reason: "stop" }] }]));
    const events = await collect(provider().fimStream(fimRequest({ suffix: "\n" }), {}));
    expect(upstream.requests[0]?.path).toBe("/v1/completions");
    expect(body()).toMatchObject({ stream: true, stream_options: { include_usage: true }, suffix: "\n" });
    expect(events).toStrictEqual([
      { type: "delta", index: 0, content: "x)" },
      { type: "delta", index: 0, content: ": pass" },
      { type: "finish", index: 0, reason: "stop" },
    ]);
  });

  it("streams chat-shaped chunks from /v1/fim/completions (mistral dialect)", async () => {
    upstream.reply(sse([chunk({ content: "x)" }), chunk({ content: ": pass" }, "stop")]));
    const events = await collect(provider({ dialect: "mistral" }).fimStream(fimRequest(), {}));
    expect(upstream.requests[0]?.path).toBe("/v1/fim/completions");
    expect(events.filter((e) => e.type === "delta").map((e) => (e.type === "delta" ? e.content : ""))).toStrictEqual(["x)", ": pass"]);
  });
});

describe("embeddings", () => {
  const vectors = json({
    data: [
      { object: "embedding", index: 1, embedding: [0, 1] },
      { object: "embedding", index: 0, embedding: [1, 0] },
    ],
    usage: { prompt_tokens: 6, total_tokens: 6 },
  });

  it("sends input and dimensions (openai dialect)", async () => {
    upstream.reply(vectors);
    await provider().embed({ model: "up-embed", inputs: ["a", "b"], dimensions: 2 }, {});
    expect(upstream.requests[0]?.path).toBe("/v1/embeddings");
    expect(body()).toStrictEqual({ model: "up-embed", input: ["a", "b"], dimensions: 2 });
  });

  it("sends output_dimension (mistral dialect)", async () => {
    upstream.reply(vectors);
    await provider({ dialect: "mistral" }).embed({ model: "up-embed", inputs: ["a", "b"], dimensions: 2 }, {});
    expect(body()).toStrictEqual({ model: "up-embed", input: ["a", "b"], output_dimension: 2 });
  });

  it("orders the vectors by index and reports prompt tokens", async () => {
    upstream.reply(vectors);
    expect(await provider().embed({ model: "up-embed", inputs: ["a", "b"] }, {})).toStrictEqual({
      vectors: [
        [1, 0],
        [0, 1],
      ],
      promptTokens: 6,
    });
  });

  it("throws a 502 when the upstream returns a different number of vectors", async () => {
    upstream.reply(json({ data: [{ index: 0, embedding: [1] }] }));
    expect(await failure(provider().embed({ model: "up-embed", inputs: ["a", "b"] }, {}))).toMatchObject({ status: 502 });
  });
});

describe("moderation", () => {
  it("posts to /v1/moderations and maps categories and scores (mistral dialect)", async () => {
    upstream.reply(json({ id: "m", model: "up-mod", results: [{ categories: { hate: false, violence: true }, category_scores: { hate: 0.01, violence: 0.9 } }] }));
    const result = await provider({ dialect: "mistral" }).moderate({ model: "up-mod", inputs: ["x"] }, {});
    expect(upstream.requests[0]).toMatchObject({ path: "/v1/moderations", body: { model: "up-mod", input: ["x"] } });
    expect(result).toStrictEqual([{ categories: { hate: false, violence: true }, categoryScores: { hate: 0.01, violence: 0.9 } }]);
  });

  it("is unsupported with the openai dialect, without calling the upstream", async () => {
    expect(await failure(provider().moderate({ model: "up-mod", inputs: ["x"] }, {}))).toBeInstanceOf(UnsupportedByProvider);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("upstream errors", () => {
  it("passes a 400's error.message through as a 400", async () => {
    upstream.reply(json({ error: { message: "max_tokens is too large", type: "invalid_request_error" } }, { status: 400 }));
    const error = await failure(provider().chat(chatRequest(), {}));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 400, message: "max_tokens is too large" });
  });

  it("turns a 404 with a top-level message into a 400 with that message", async () => {
    upstream.reply(json({ object: "error", message: "model 'nope' not found" }, { status: 404 }));
    expect(await failure(provider().chat(chatRequest(), {}))).toMatchObject({ status: 400, message: "model 'nope' not found" });
  });

  it("turns a 422 with a FastAPI detail list into a 400 naming the field", async () => {
    upstream.reply(json({ detail: [{ loc: ["body", "temperature"], msg: "Input should be less than 2", type: "less_than" }] }, { status: 422 }));
    expect(await failure(provider().chat(chatRequest(), {}))).toMatchObject({ status: 400, message: "body.temperature: Input should be less than 2" });
  });

  it.each([401, 403])("turns a %i into a 502 about our credentials", async (status) => {
    process.env.FAKE_UPSTREAM_ERR_KEY = "sk-never-shown";
    upstream.reply(json({ message: "Unauthorized" }, { status }));
    const error = await failure(provider({ apiKeyEnv: "FAKE_UPSTREAM_ERR_KEY" }).chat(chatRequest(), {}));
    delete process.env.FAKE_UPSTREAM_ERR_KEY;
    expect(error).toMatchObject({ status: 502 });
    expect((error as Error).message).toMatch(/refused our credentials/);
    expect((error as Error).message).not.toContain("sk-never-shown");
  });

  it("turns a 429 into a 429 with retryAfterSeconds from Retry-After", async () => {
    upstream.reply(json({ message: "slow down" }, { status: 429, headers: { "retry-after": "7" } }));
    expect(await failure(provider().chat(chatRequest(), {}))).toMatchObject({ status: 429, retryAfterSeconds: 7 });
  });

  it("reads an HTTP-date Retry-After as seconds from now", async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    upstream.reply(json({ message: "slow down" }, { status: 429, headers: { "retry-after": at } }));
    const error = (await failure(provider().chat(chatRequest(), {}))) as UpstreamError;
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(30);
  });

  it("turns a 500 into a 502", async () => {
    upstream.reply(text("Internal Server Error", { status: 500 }));
    expect(await failure(provider().chat(chatRequest(), {}))).toMatchObject({ name: "UpstreamError", status: 502 });
  });

  it("turns an error status on a stream request into the same mapping", async () => {
    upstream.reply(json({ error: { message: "bad stop" } }, { status: 400 }));
    expect(await failure(collect(provider().chatStream(chatRequest(), {})))).toMatchObject({ status: 400, message: "bad stop" });
  });

  it("turns a timeout into a 504", async () => {
    upstream.reply(hang());
    expect(await failure(provider({ timeoutMs: 100 }).chat(chatRequest(), {}))).toMatchObject({ name: "UpstreamError", status: 504 });
  });

  it("turns a stream that goes quiet for longer than the timeout into a 504", async () => {
    const manual = new ManualSse();
    upstream.reply(manual.reply);
    const events = provider({ timeoutMs: 150 }).chatStream(chatRequest(), {})[Symbol.asyncIterator]();
    const first = events.next();
    await manual.opened;
    await manual.send(chunk({ content: "a" }));
    await first;
    expect(await failure(events.next())).toMatchObject({ status: 504 });
  }, FAST_FAIL_MS);

  it("turns a refused connection into a 502 naming the base URL", async () => {
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, "127.0.0.1", resolve));
    const { port } = spare.address() as AddressInfo;
    await new Promise<void>((resolve) => spare.close(() => resolve()));
    const error = await failure(provider({ baseUrl: `http://127.0.0.1:${port}` }).chat(chatRequest(), {}));
    expect(error).toMatchObject({ status: 502 });
    expect((error as Error).message).toContain(`http://127.0.0.1:${port}`);
    expect((error as Error).message).toContain("ECONNREFUSED");
  });

  it("turns a connection closed without an answer into a 502", async () => {
    upstream.reply(drop());
    expect(await failure(provider().chat(chatRequest(), {}))).toMatchObject({ status: 502 });
  });
});

describe("abort", () => {
  it("aborts the upstream request when the caller's signal fires", async () => {
    upstream.reply(hang());
    const controller = new AbortController();
    const pending = failure(provider().chat(chatRequest(), { signal: controller.signal }));
    await upstream.waitForRequests(1);
    controller.abort();
    expect(await pending).toMatchObject({ name: "AbortError" });
    await upstream.requests[0]?.disconnected;
  }, FAST_FAIL_MS);

  it("aborts a running stream when the caller's signal fires", async () => {
    const manual = new ManualSse();
    upstream.reply(manual.reply);
    const controller = new AbortController();
    const events = provider().chatStream(chatRequest(), { signal: controller.signal })[Symbol.asyncIterator]();
    const first = events.next();
    await manual.opened;
    await manual.send(chunk({ content: "a" }));
    await first;
    controller.abort();
    expect(await failure(events.next())).toMatchObject({ name: "AbortError" });
    await upstream.requests[0]?.disconnected;
  }, FAST_FAIL_MS);

  it("closes the upstream connection when the consumer stops reading early", async () => {
    const manual = new ManualSse();
    upstream.reply(manual.reply);
    await manual.send(chunk({ content: "a" }));
    for await (const event of provider().chatStream(chatRequest(), {})) {
      expect(event).toMatchObject({ type: "delta" });
      break;
    }
    await manual.opened;
    await upstream.requests[0]?.disconnected;
  }, FAST_FAIL_MS);
});
