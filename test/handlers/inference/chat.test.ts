import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { handler } from "../../../functions/inference/chat.js";
import { providerNamed } from "../../../shared/inference/registry.js";
import { countTokens } from "../../../shared/inference/tokenizer.js";
import { UpstreamError, type CompletionEvent } from "../../../shared/inference/types.js";
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { PROCESS_CACHE_TTL_MS } from "../../../shared/domain/process-cache.js";
import { ResponseStream } from "../../../infra/local/lambda-streaming.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { physicalName, serveTables } from "../../support/fake-table.js";
import {
  aCaller,
  aContext,
  aFineTunedModelEntry,
  aJsonEvent,
  aModelEntry,
  aModelItem,
  anAliasItem,
  invokeStream,
  serveModelsTable,
  ssePayloads,
  sseChunks,
  streamedContent,
  usageRecordsWritten,
  usageCallerOf,
} from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const small = aModelEntry({ id: "mistral-small-latest", aliases: ["mistral-small"], endpoints: ["chat"], tokenizer: "v3" });
const embed = aModelEntry({ id: "mistral-embed", endpoints: ["embeddings"], tokenizer: "v1", upstream: "offline-hash-embed", dimensions: [1024] });
const tinyContext = aModelEntry({ id: "tiny-context", endpoints: ["chat"], maxContextLength: 40 });
const archived = aFineTunedModelEntry({ workspace: caller.workspace, archived: true });

beforeEach(() => {
  serveModelsTable(dynamo, [aModelItem(small), anAliasItem("mistral-small", small.id), aModelItem(embed), aModelItem(tinyContext), aModelItem(archived)]);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const chat = (body: Record<string, unknown>, who = caller) => aJsonEvent(body, { path: "/v1/chat/completions", resource: "/v1/chat/completions", caller: who });
const hello = (extra: Record<string, unknown> = {}) => ({ model: "mistral-small-latest", messages: [{ role: "user", content: "Hello there" }], ...extra });
const ECHO = "[offline] No language model is configured. You said: «Hello there»";

const usageRecords = () => usageRecordsWritten(dynamo);

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        days: { type: "integer", default: 3 },
        detailed: { type: "boolean" },
        hours: { type: "array", items: { type: "integer" } },
      },
      required: ["city", "unit", "days", "detailed", "hours"],
    },
  },
};

describe("POST /v1/chat/completions", () => {
  it("answers 400 for a conversation ending on an assistant message without prefix, calling no model", async () => {
    const messages = [
      { role: "user", content: "hello" },
      { role: "assistant", content: "hey" },
    ];

    const response = await invokeStream(handler, chat(hello({ messages })));

    expect(response.metadata?.statusCode).toBe(400);
    expect(response.json).toStrictEqual(
      aPlatformError({
        message: "Expected last role user or tool (or assistant with prefix true) for serving but got assistant",
        type: "invalid_request_error",
        param: "messages",
        code: "invalid_request_message_order",
      }),
    );
    expect(usageRecords()).toHaveLength(0);
  });

  it("continues an assistant message marked prefix, and answers after a tool result", async () => {
    const prefixed = await invokeStream(handler, chat(hello({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "Sure:", prefix: true }] })));
    const afterTool = await invokeStream(handler, chat(hello({ messages: [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "a", content: "42" }] })));

    expect(prefixed.metadata?.statusCode ?? 200).toBe(200);
    expect(afterTool.metadata?.statusCode ?? 200).toBe(200);
  });

  describe("answered whole", () => {
    it("answers 200 JSON with a labelled echo of the last user message", async () => {
      const event = chat(hello());

      const response = await invokeStream(handler, event);

      expect(response.metadata?.statusCode).toBe(200);
      expect(response.metadata?.headers?.["content-type"]).toBe("application/json");
      expect(response.metadata?.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
      expect(response.json).toMatchObject({
        object: "chat.completion",
        model: "mistral-small-latest",
        choices: [{ index: 0, message: { role: "assistant", content: ECHO, tool_calls: null, prefix: false }, finish_reason: "stop" }],
      });
      expect(response.json.id).toMatch(/^cmpl-[0-9a-f]{32}$/);
      expect(response.json.created).toBeTypeOf("number");
    });

    it("says which backend answered in x-inference-backend, and which deployment in x-inference-deployment", async () => {
      const response = await invokeStream(handler, chat(hello()));

      expect(response.metadata?.headers?.["x-inference-backend"]).toBe("offline");
      expect(response.metadata?.headers?.["x-inference-deployment"]).toBe("offline");
    });

    it("counts usage with the model's tokenizer", async () => {
      const response = await invokeStream(handler, chat(hello()));

      const prompt = countTokens("v3", "Hello there");
      const completion = countTokens("v3", ECHO);
      expect(response.json.usage).toStrictEqual({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
    });

    it("counts every message of the conversation in the prompt", async () => {
      const messages = [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello there" },
      ];

      const response = await invokeStream(handler, chat(hello({ messages })));

      expect(response.json.usage.prompt_tokens).toBe(countTokens("v3", "Be brief.\nHello there"));
    });

    it("writes a usage record of the call", async () => {
      const event = chat(hello());

      const response = await invokeStream(handler, event);

      expect(usageRecords()).toHaveLength(1);
      expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({
        ...usageCallerOf(caller, event),
        model: "mistral-small-latest",
        route: "POST /v1/chat/completions",
        promptTokens: response.json.usage.prompt_tokens,
        completionTokens: response.json.usage.completion_tokens,
        status: 200,
        backend: "offline",
        deployment: "offline/offline-echo",
      });
    });

    it("prices the call at the answering deployment's own price when the price list has one", async () => {
      const { priceList } = await import("../../../shared/services/usage/spend.js");
      const before = priceList.deployments;
      priceList.deployments = { "offline/offline-echo": { input_per_million: 1_000_000, output_per_million: 0 } };
      try {
        const response = await invokeStream(handler, chat(hello()));

        // A dollar a token: the record's cost is the prompt's tokens, in micro-dollars, a million each.
        expect(usageRecords()[0]!.args[0].input.Item!.costMicros).toBe(response.json.usage.prompt_tokens * 1_000_000);
      } finally {
        priceList.deployments = before;
      }
    });

    it("answers under the model's id when called by an alias", async () => {
      const response = await invokeStream(handler, chat(hello({ model: "mistral-small" })));

      expect(response.metadata?.statusCode).toBe(200);
      expect(response.json.model).toBe("mistral-small-latest");
    });

    it("answers n choices for n: 3 and bills the prompt once", async () => {
      const response = await invokeStream(handler, chat(hello({ n: 3 })));

      expect(response.json.choices.map((c: { index: number }) => c.index)).toStrictEqual([0, 1, 2]);
      expect(response.json.choices.map((c: { message: { content: string } }) => c.message.content)).toStrictEqual([ECHO, ECHO, ECHO]);
      expect(response.json.usage.prompt_tokens).toBe(countTokens("v3", "Hello there"));
    });

    it("stops at max_tokens with finish_reason length", async () => {
      const response = await invokeStream(handler, chat(hello({ max_tokens: 5 })));

      const [choice] = response.json.choices;
      expect(choice.finish_reason).toBe("length");
      expect(countTokens("v3", choice.message.content)).toBeLessThanOrEqual(5);
      expect(choice.message.content.length).toBeGreaterThan(0);
      expect(ECHO.startsWith(choice.message.content)).toBe(true);
    });

    it("cuts the answer at a stop sequence", async () => {
      const response = await invokeStream(handler, chat(hello({ stop: ["configured"] })));

      expect(response.json.choices[0]).toMatchObject({ message: { content: "[offline] No language model is " }, finish_reason: "stop" });
    });

    it("answers valid JSON for a json_object response format", async () => {
      const response = await invokeStream(handler, chat(hello({ response_format: { type: "json_object" } })));

      expect(JSON.parse(response.json.choices[0].message.content)).toStrictEqual({ offline: true, echo: "Hello there" });
    });

    it("answers a forced tool choice with a call whose placeholder arguments fit the tool's schema", async () => {
      const response = await invokeStream(handler, chat(hello({ tools: [weatherTool], tool_choice: { type: "function", function: { name: "get_weather" } } })));

      const [choice] = response.json.choices;
      expect(choice.finish_reason).toBe("tool_calls");
      expect(choice.message.tool_calls).toHaveLength(1);
      expect(choice.message.tool_calls[0]).toMatchObject({ type: "function", function: { name: "get_weather" } });
      const args = JSON.parse(choice.message.tool_calls[0].function.arguments);
      expect(z.fromJSONSchema(weatherTool.function.parameters as never).safeParse(args).success).toBe(true);
    });

    it("answers 400 invalid_model naming the model for an unknown model (as Mistral does), without a usage record", async () => {
      const response = await invokeStream(handler, chat(hello({ model: "no-such-model" })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json).toStrictEqual(aPlatformError({ message: "Invalid model: no model 'no-such-model' exists in this workspace", type: "invalid_request_error", param: "model", code: "invalid_model" }));
      expect(usageRecords()).toHaveLength(0);
    });

    it("answers 400 for an archived model", async () => {
      const response = await invokeStream(handler, chat(hello({ model: archived.id })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json).toMatchObject({
        type: "invalid_request_error",
        code: "model_archived",
        param: "model",
        message: `Model '${archived.id}' is archived; unarchive it to use it`,
      });
    });

    it("answers 400 model_capability_missing for a model without chat", async () => {
      const response = await invokeStream(handler, chat(hello({ model: "mistral-embed" })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json).toMatchObject({ code: "model_capability_missing", message: "Model 'mistral-embed' does not support chat completion" });
    });

    it("answers 400 context_length_exceeded when prompt tokens plus max_tokens exceed the context", async () => {
      const prompt = countTokens("v3", "Hello there");
      const maxTokens = 40 - prompt + 1;

      const response = await invokeStream(handler, chat(hello({ model: "tiny-context", max_tokens: maxTokens })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json).toStrictEqual(aPlatformError({ message: `Prompt (${prompt} tokens) plus max_tokens (${maxTokens}) is 41 tokens, over the 40-token context of 'tiny-context'`, type: "invalid_request_error", param: "max_tokens", code: "context_length_exceeded" }));
      expect(usageRecords()).toHaveLength(0);
    });

    it("accepts a prompt plus max_tokens that exactly fills the context", async () => {
      const maxTokens = 40 - countTokens("v3", "Hello there");

      const response = await invokeStream(handler, chat(hello({ model: "tiny-context", max_tokens: maxTokens })));

      expect(response.metadata?.statusCode).toBe(200);
    });

    it("answers 422 extra_forbidden for an unknown body field", async () => {
      const response = await invokeStream(handler, chat(hello({ temprature: 0.2 })));

      expect(response.metadata?.statusCode).toBe(422);
      expect(response.json).toStrictEqual({ detail: [{ loc: ["body", "temprature"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }] });
    });

    it("answers 422 for an empty conversation", async () => {
      const response = await invokeStream(handler, chat(hello({ messages: [] })));

      expect(response.metadata?.statusCode).toBe(422);
      expect(response.json.detail[0]).toMatchObject({ loc: ["body", "messages"], type: "too_short" });
    });

    it("answers 401 without the authorizer context", async () => {
      const response = await invokeStream(handler, aJsonEvent(hello(), { path: "/v1/chat/completions", caller: null }));

      expect(response.metadata?.statusCode).toBe(401);
      expect(dynamo.calls()).toHaveLength(0);
    });
  });

  describe("streamed (stream: true)", () => {
    it("answers 200 as an event stream that names the backend", async () => {
      const event = chat(hello({ stream: true }));

      const response = await invokeStream(handler, event);

      expect(response.metadata?.statusCode).toBe(200);
      expect(response.metadata?.headers).toMatchObject({ "content-type": "text/event-stream", "x-inference-backend": "offline", "x-request-id": event.requestContext.requestId });
    });

    it("writes every event as one data frame", async () => {
      const response = await invokeStream(handler, chat(hello({ stream: true })));

      expect(response.body).toMatch(/^(data: [^\n]+\n\n)+$/);
    });

    it("opens with a chunk carrying the assistant role", async () => {
      const response = await invokeStream(handler, chat(hello({ stream: true })));

      expect(sseChunks(response.body)[0].choices).toStrictEqual([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    });

    it("leaves finish_reason null on every chunk but the last, which carries it and the usage", async () => {
      const response = await invokeStream(handler, chat(hello({ stream: true })));

      const chunks = sseChunks(response.body);
      const last = chunks.at(-1);
      const earlierReasons = chunks.slice(0, -1).flatMap((c) => c.choices.map((choice: { finish_reason: unknown }) => choice.finish_reason));
      expect(new Set(earlierReasons)).toStrictEqual(new Set([null]));
      expect(chunks.slice(0, -1).every((c) => c.usage === undefined)).toBe(true);
      expect(last.choices).toStrictEqual([{ index: 0, delta: {}, finish_reason: "stop" }]);
      expect(last.usage).toStrictEqual({
        prompt_tokens: countTokens("v3", "Hello there"),
        completion_tokens: countTokens("v3", ECHO),
        total_tokens: countTokens("v3", "Hello there") + countTokens("v3", ECHO),
      });
    });

    it("ends with data: [DONE]", async () => {
      const response = await invokeStream(handler, chat(hello({ stream: true })));

      expect(response.body.endsWith("data: [DONE]\n\n")).toBe(true);
      expect(ssePayloads(response.body).filter((p) => p === "[DONE]")).toHaveLength(1);
    });

    it("sends chunks of one completion id, under the model's public id", async () => {
      const response = await invokeStream(handler, chat(hello({ model: "mistral-small", stream: true })));

      const chunks = sseChunks(response.body);
      expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
      expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "mistral-small-latest")).toBe(true);
    });

    it("streams content that joins to the non-streamed answer", async () => {
      const whole = await invokeStream(handler, chat(hello()));
      const streamed = await invokeStream(handler, chat(hello({ stream: true })));

      expect(sseChunks(streamed.body).length).toBeGreaterThan(3);
      expect(streamedContent(streamed.body)).toBe(whole.json.choices[0].message.content);
    });

    it("ends with finish_reason length when max_tokens cuts the answer", async () => {
      const response = await invokeStream(handler, chat(hello({ max_tokens: 5, stream: true })));

      expect(sseChunks(response.body).at(-1).choices[0].finish_reason).toBe("length");
    });

    it("streams a forced tool call and ends with finish_reason tool_calls", async () => {
      const response = await invokeStream(handler, chat(hello({ stream: true, tools: [weatherTool], tool_choice: "any" })));

      const chunks = sseChunks(response.body);
      const calls = chunks.flatMap((c) => c.choices.flatMap((choice: { delta: { tool_calls?: unknown[] } }) => choice.delta.tool_calls ?? []));
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ function: { name: "get_weather" } });
      expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls");
    });

    it("writes a usage record once the stream is done", async () => {
      const response = await invokeStream(handler, chat(hello({ stream: true })));

      const usage = sseChunks(response.body).at(-1).usage;
      expect(usageRecords()).toHaveLength(1);
      expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({
        workspace: caller.workspace,
        principal: caller.principal,
        model: "mistral-small-latest",
        route: "POST /v1/chat/completions",
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        status: 200,
      });
    });

    it("answers an unknown model with a normal 400 JSON body", async () => {
      const response = await invokeStream(handler, chat(hello({ model: "no-such-model", stream: true })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.metadata?.headers?.["content-type"]).toBe("application/json");
      expect(response.json).toMatchObject({ object: "error", type: "invalid_request_error", code: "invalid_model", message: "Invalid model: no model 'no-such-model' exists in this workspace" });
    });

    it("answers an upstream failure before the first event with its status", async () => {
      const offline = await providerNamed("offline");
      vi.spyOn(offline, "chatStream").mockImplementation(async function* (): AsyncGenerator<CompletionEvent> {
        throw new UpstreamError(429, "Upstream is throttling");
      });

      const response = await invokeStream(handler, chat(hello({ stream: true })));

      expect(response.metadata?.statusCode).toBe(429);
      // Tried twice (the router's default: one more try on the same deployment) before the caller gets the failure.
      expect(offline.chatStream).toHaveBeenCalledTimes(2);
      expect(response.json).toMatchObject({ object: "error", type: "rate_limit_error", message: "Upstream is throttling (after 2 attempts)" });
      expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({ status: 429, promptTokens: 0, completionTokens: 0 });
    });

    it("ends a stream that fails after its first event with finish_reason error, then [DONE]", async () => {
      const offline = await providerNamed("offline");
      vi.spyOn(offline, "chatStream").mockImplementation(async function* (): AsyncGenerator<CompletionEvent> {
        yield { type: "delta", index: 0, content: "Partial " };
        throw new Error("connection reset");
      });

      const response = await invokeStream(handler, chat(hello({ stream: true })));

      expect(response.metadata?.statusCode).toBe(200);
      const payloads = ssePayloads(response.body);
      expect(payloads.at(-1)).toBe("[DONE]");
      const chunks = sseChunks(response.body);
      expect(chunks.map((c) => c.choices[0].delta.content ?? null)).toStrictEqual(["", "Partial ", null]);
      expect(chunks.at(-1).choices).toStrictEqual([{ index: 0, delta: {}, finish_reason: "error" }]);
    });

    it("records a stream that failed after its first event as stream_error", async () => {
      const offline = await providerNamed("offline");
      vi.spyOn(offline, "chatStream").mockImplementation(async function* (): AsyncGenerator<CompletionEvent> {
        yield { type: "delta", index: 0, content: "Partial " };
        throw new Error("connection reset");
      });

      await invokeStream(handler, chat(hello({ stream: true })));

      expect(usageRecords()).toHaveLength(1);
      expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({ status: "stream_error", completionTokens: countTokens("v3", "Partial ") });
    });
  });
});

describe("the model-call path: answer first, caches, Server-Timing (decision 0045)", () => {
  const writesOf = (events: string[]) => {
    const record = () => {
      events.push("write");
      return {};
    };
    dynamo.on(PutCommand).callsFake(record);
    dynamo.on(UpdateCommand).callsFake(record);
    dynamo.on(BatchWriteCommand).callsFake(record);
  };
  const streamed = async (event: ReturnType<typeof chat>, events: string[]) => {
    const stream = new ResponseStream(
      () => events.push("headers"),
      () => events.push("chunk"),
      () => events.push("end"),
    );
    await (handler as unknown as (e: unknown, s: ResponseStream, c: unknown) => Promise<void>)(event, stream, aContext());
  };

  it.each([
    ["a plain answer", false],
    ["a stream", true],
  ])("ends the response (%s) before any bookkeeping write starts, and writes them all before the invocation ends", async (_, stream) => {
    const events: string[] = [];
    writesOf(events);

    await streamed(chat(hello({ stream })), events);

    const end = events.indexOf("end");
    expect(end).toBeGreaterThan(0);
    expect(events.slice(0, end)).not.toContain("write");
    // The usage record, the month's and the day's totals, the span (one BatchWriteItem for its two items).
    expect(events.slice(end + 1).filter((e) => e === "write")).toHaveLength(4);
  });

  it("reads the model card and the workspace once per TTL, not on every call", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const modelReads = () => dynamo.commandCalls(BatchGetCommand).length;
      const workspaceReads = () => dynamo.commandCalls(GetCommand).filter((c) => String(c.args[0].input.Key?.sk).startsWith("WS#")).length;

      expect((await invokeStream(handler, chat(hello()))).metadata?.statusCode).toBe(200);
      expect((await invokeStream(handler, chat(hello()))).metadata?.statusCode).toBe(200);
      expect(modelReads()).toBe(1);
      expect(workspaceReads()).toBe(1);

      vi.setSystemTime(Date.now() + PROCESS_CACHE_TTL_MS + 1);
      expect((await invokeStream(handler, chat(hello()))).metadata?.statusCode).toBe(200);
      expect(modelReads()).toBe(2);
      expect(workspaceReads()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("tells a plain answer's platform time before and after the upstream, and the upstream's, in Server-Timing", async () => {
    const response = await invokeStream(handler, chat(hello()));

    const timing = String(response.metadata?.headers?.["server-timing"]);
    expect(timing).toMatch(/^platform-before;dur=\d+\.\d{2};desc="platform before the upstream", upstream;dur=\d+\.\d{2}, platform-after;dur=\d+\.\d{2};desc="platform after the upstream"$/);
  });

  it("tells a stream's platform time before the upstream only (its headers leave before the upstream is done)", async () => {
    const response = await invokeStream(handler, chat(hello({ stream: true })));

    expect(String(response.metadata?.headers?.["server-timing"])).toMatch(/^platform-before;dur=\d+\.\d{2};desc="platform before the upstream"$/);
  });

  it("does not count a prompt the upstream's usage and the byte bound make needless to count", async () => {
    const provider = await providerNamed("offline");
    vi.spyOn(provider, "chat").mockResolvedValue({
      choices: [{ content: "ok", toolCalls: [], finishReason: "stop" }],
      usage: { promptTokens: 11, completionTokens: 1 },
    } as never);
    const tokenizer = await import("../../../shared/inference/tokenizer.js");
    const counted = vi.spyOn(tokenizer, "countTokens");

    const response = await invokeStream(handler, chat(hello()));

    expect(response.json.usage).toStrictEqual({ prompt_tokens: 11, completion_tokens: 1, total_tokens: 12 });
    expect(counted).not.toHaveBeenCalled();
  });

  it("still refuses a prompt over the context that only counting can tell", async () => {
    // 40-token context: a 60-byte prompt may or may not fit, so it is counted (and here it does not fit).
    const response = await invokeStream(handler, chat(hello({ model: "tiny-context", messages: [{ role: "user", content: "word ".repeat(12) }], max_tokens: 30 })));

    expect(response.metadata?.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "context_length_exceeded", param: "max_tokens" });
  });
});

describe("the response cache (docs/routing.md)", () => {
  const cached = (extra: Record<string, string> = {}) =>
    aJsonEvent(hello(), { path: "/v1/chat/completions", resource: "/v1/chat/completions", caller, headers: { "x-response-cache": "on", ...extra } });
  const responsesPut = () => dynamo.commandCalls(PutCommand).filter((c) => c.args[0].input.TableName === physicalName("responses"));

  beforeEach(() => {
    serveTables(dynamo, { models: [aModelItem(small), anAliasItem("mistral-small", small.id)] }, { writes: true });
  });

  it("keeps the answer under the workspace when the call asks, for the TTL it names", async () => {
    const response = await invokeStream(handler, cached({ "x-response-cache-ttl": "120" }));

    expect(response.metadata?.headers?.["x-response-cache"]).toBe("miss");
    const [put] = responsesPut();
    const item = put!.args[0].input.Item!;
    expect(item.workspace).toBe(caller.workspace);
    expect(item.ttl - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(118);
    expect(JSON.parse(item.answer as string)).toMatchObject({ choices: [{ content: ECHO, finishReason: "stop" }] });
  });

  it("answers the same call from the kept answer: no provider, a cached usage record at no cost", async () => {
    await invokeStream(handler, cached());
    const provider = await providerNamed("offline");
    const called = vi.spyOn(provider, "chat");

    const response = await invokeStream(handler, cached());

    expect(response.metadata?.headers?.["x-response-cache"]).toBe("hit");
    expect(response.metadata?.headers?.["x-inference-backend"]).toBe("response-cache");
    expect(response.json.choices[0].message.content).toBe(ECHO);
    expect(called).not.toHaveBeenCalled();
    const records = usageRecords().map((c) => c.args[0].input.Item);
    expect(records.map((r) => [r.cached, r.costMicros === 0])).toStrictEqual([
      [undefined, false],
      [true, true],
    ]);
    expect(responsesPut()).toHaveLength(1);
  });

  it("leaves the cache alone without the header (and no workspace setting)", async () => {
    const response = await invokeStream(handler, chat(hello()));

    expect(response.metadata?.headers?.["x-response-cache"]).toBeUndefined();
    expect(responsesPut()).toHaveLength(0);
    expect(dynamo.commandCalls(GetCommand).filter((c) => c.args[0].input.TableName === physicalName("responses"))).toHaveLength(0);
  });
});

describe("a key's token limits (docs/routing.md, \"Per-key limits\")", () => {
  const limited = aCaller({ workspace: caller.workspace, organization: caller.organization, tokensPerMinute: 10_000 });
  const tokenWrites = () =>
    dynamo
      .commandCalls(UpdateCommand)
      .map((c) => c.args[0].input)
      .filter((input) => input.TableName === physicalName("rates") && String(input.Key?.window).startsWith("tp"));
  const promptTokens = countTokens("v3", "Hello there");

  it("cost a key without them nothing: no token window is written", async () => {
    expect((await invokeStream(handler, chat(hello()))).metadata?.statusCode).toBe(200);

    expect(tokenWrites()).toHaveLength(0);
  });

  it("reserve the prompt before the upstream, then settle the completion after the answer", async () => {
    const response = await invokeStream(handler, chat(hello(), limited));

    expect(response.metadata?.statusCode).toBe(200);
    expect(tokenWrites().map((w) => [w.ExpressionAttributeValues![":tokens"], w.ConditionExpression !== undefined])).toStrictEqual([
      [promptTokens, true],
      [response.json.usage.completion_tokens, false],
    ]);
  });

  it("give the reservation back when the upstream fails", async () => {
    const provider = await providerNamed("offline");
    vi.spyOn(provider, "chat").mockRejectedValue(new UpstreamError(500, "Upstream broke"));

    const response = await invokeStream(handler, chat(hello(), limited));

    expect(response.metadata?.statusCode).toBe(500);
    expect(tokenWrites().map((w) => w.ExpressionAttributeValues![":tokens"])).toStrictEqual([promptTokens, -promptTokens]);
  });

  it("refuse a call with 429 before the upstream once the window is full", async () => {
    const { ConditionalCheckFailedException } = await import("@aws-sdk/client-dynamodb");
    dynamo.on(UpdateCommand, { ConditionExpression: "attribute_not_exists(n) OR n <= :room" }).rejects(new ConditionalCheckFailedException({ message: "full", $metadata: {} }));
    const provider = await providerNamed("offline");
    const called = vi.spyOn(provider, "chat");

    const response = await invokeStream(handler, chat(hello(), limited));

    expect(response.metadata?.statusCode).toBe(429);
    expect(response.json).toMatchObject({ type: "rate_limit_error", code: "tokens_per_minute_exceeded" });
    expect(response.metadata?.headers?.["retry-after"]).toMatch(/^\d+$/);
    expect(called).not.toHaveBeenCalled();
  });
});
