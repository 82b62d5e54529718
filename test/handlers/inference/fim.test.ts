import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/inference/fim.js";
import { providerNamed } from "../../../shared/inference/registry.js";
import { countTokens } from "../../../shared/inference/tokenizer.js";
import type { CompletionEvent } from "../../../shared/inference/types.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import {
  aCaller,
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

const codestral = aModelEntry({ id: "codestral-latest", aliases: ["codestral-2405"], endpoints: ["chat", "fim"], upstream: "offline-fim", tokenizer: "v3" });
const small = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] });
const tinyContext = aModelEntry({ id: "tiny-code", endpoints: ["fim"], maxContextLength: 30 });
const archived = aFineTunedModelEntry({ workspace: caller.workspace, root: "codestral-latest", endpoints: ["chat", "fim"], archived: true });

beforeEach(() => {
  serveModelsTable(dynamo, [aModelItem(codestral), anAliasItem("codestral-2405", codestral.id), aModelItem(small), aModelItem(tinyContext), aModelItem(archived)]);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const PROMPT = "def fibonacci(n):\n    return ";
const SUFFIX = "\n\nprint(fibonacci(10))";
const ECHO = "[offline] No code model is configured; the prompt ends with: «    return »";

const fim = (body: Record<string, unknown>, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, { path: "/v1/fim/completions", resource: "/v1/fim/completions", caller: who });
const code = (extra: Record<string, unknown> = {}) => ({ model: "codestral-latest", prompt: PROMPT, suffix: SUFFIX, ...extra });

const usageRecords = () => usageRecordsWritten(dynamo);

describe("POST /v1/fim/completions", () => {
  describe("answered whole", () => {
    it("answers 200 JSON with a labelled echo of the prompt's last line", async () => {
      const event = fim(code());

      const response = await invokeStream(handler, event);

      expect(response.metadata?.statusCode).toBe(200);
      expect(response.metadata?.headers?.["content-type"]).toBe("application/json");
      expect(response.metadata?.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
      expect(response.json).toMatchObject({
        object: "chat.completion",
        model: "codestral-latest",
        choices: [{ index: 0, message: { role: "assistant", content: ECHO, tool_calls: null, prefix: false }, finish_reason: "stop" }],
      });
    });

    it("says which backend answered in x-inference-backend", async () => {
      const response = await invokeStream(handler, fim(code()));

      expect(response.metadata?.headers?.["x-inference-backend"]).toBe("offline");
    });

    it("counts the prompt and the suffix with the model's tokenizer", async () => {
      const response = await invokeStream(handler, fim(code()));

      const prompt = countTokens("v3", PROMPT + SUFFIX);
      const completion = countTokens("v3", ECHO);
      expect(response.json.usage).toStrictEqual({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
    });

    it("writes a usage record of the call", async () => {
      const event = fim(code());

      const response = await invokeStream(handler, event);

      expect(usageRecords()).toHaveLength(1);
      expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({
        ...usageCallerOf(caller, event),
        model: "codestral-latest",
        route: "POST /v1/fim/completions",
        promptTokens: response.json.usage.prompt_tokens,
        completionTokens: response.json.usage.completion_tokens,
        status: 200,
        backend: "offline",
      });
    });

    it("answers under the model's id when called by an alias", async () => {
      const response = await invokeStream(handler, fim(code({ model: "codestral-2405" })));

      expect(response.json.model).toBe("codestral-latest");
    });

    it("stops at max_tokens with finish_reason length", async () => {
      const response = await invokeStream(handler, fim(code({ max_tokens: 4 })));

      const [choice] = response.json.choices;
      expect(choice.finish_reason).toBe("length");
      expect(countTokens("v3", choice.message.content)).toBeLessThanOrEqual(4);
      expect(ECHO.startsWith(choice.message.content)).toBe(true);
    });

    it("cuts the answer at a stop sequence", async () => {
      const response = await invokeStream(handler, fim(code({ stop: ";" })));

      expect(response.json.choices[0]).toMatchObject({ message: { content: "[offline] No code model is configured" }, finish_reason: "stop" });
    });

    it("answers 400 model_capability_missing for a model without fim", async () => {
      const response = await invokeStream(handler, fim(code({ model: "mistral-small-latest" })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json).toStrictEqual(aPlatformError({ message: "Model 'mistral-small-latest' does not support fill-in-the-middle completion (capability completion_fim)", type: "invalid_request_error", param: "model", code: "model_capability_missing" }));
      expect(usageRecords()).toHaveLength(0);
    });

    it("answers 400 for an archived model", async () => {
      const response = await invokeStream(handler, fim(code({ model: archived.id })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json.code).toBe("model_archived");
    });

    it("answers 400 context_length_exceeded when prompt tokens plus max_tokens exceed the context", async () => {
      const prompt = countTokens("v3", PROMPT + SUFFIX);
      const maxTokens = 30 - prompt + 1;

      const response = await invokeStream(handler, fim(code({ model: "tiny-code", max_tokens: maxTokens })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json).toMatchObject({
        code: "context_length_exceeded",
        param: "max_tokens",
        message: `Prompt (${prompt} tokens) plus max_tokens (${maxTokens}) is 31 tokens, over the 30-token context of 'tiny-code'`,
      });
    });

    it("answers 400 invalid_model naming the model for an unknown model", async () => {
      const response = await invokeStream(handler, fim(code({ model: "no-such-model" })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json).toMatchObject({ code: "invalid_model", param: "model", message: "Invalid model: no model 'no-such-model' exists in this workspace" });
    });

    it("answers 422 extra_forbidden for an unknown body field", async () => {
      const response = await invokeStream(handler, fim(code({ messages: [] })));

      expect(response.metadata?.statusCode).toBe(422);
      expect(response.json).toStrictEqual({ detail: [{ loc: ["body", "messages"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }] });
    });

    it("answers 422 when the prompt is missing", async () => {
      const response = await invokeStream(handler, fim({ model: "codestral-latest" }));

      expect(response.metadata?.statusCode).toBe(422);
      expect(response.json).toStrictEqual({ detail: [{ loc: ["body", "prompt"], msg: "Field required", type: "missing" }] });
    });

    it("answers 401 without the authorizer context", async () => {
      const response = await invokeStream(handler, fim(code(), null));

      expect(response.metadata?.statusCode).toBe(401);
      expect(dynamo.calls()).toHaveLength(0);
    });
  });

  describe("streamed (stream: true)", () => {
    it("answers 200 as an event stream that names the backend", async () => {
      const response = await invokeStream(handler, fim(code({ stream: true })));

      expect(response.metadata?.statusCode).toBe(200);
      expect(response.metadata?.headers).toMatchObject({ "content-type": "text/event-stream", "x-inference-backend": "offline" });
    });

    it("writes every event as one data frame and ends with [DONE]", async () => {
      const response = await invokeStream(handler, fim(code({ stream: true })));

      expect(response.body).toMatch(/^(data: [^\n]+\n\n)+$/);
      expect(ssePayloads(response.body).at(-1)).toBe("[DONE]");
    });

    it("opens with a chunk carrying the assistant role", async () => {
      const response = await invokeStream(handler, fim(code({ stream: true })));

      expect(sseChunks(response.body)[0].choices[0].delta.role).toBe("assistant");
    });

    it("leaves finish_reason null on every chunk but the last, which carries it and the usage", async () => {
      const response = await invokeStream(handler, fim(code({ stream: true })));

      const chunks = sseChunks(response.body);
      expect(new Set(chunks.slice(0, -1).map((c) => c.choices[0].finish_reason))).toStrictEqual(new Set([null]));
      expect(chunks.at(-1)).toMatchObject({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: countTokens("v3", PROMPT + SUFFIX) } });
    });

    it("streams content that joins to the non-streamed answer", async () => {
      const whole = await invokeStream(handler, fim(code()));
      const streamed = await invokeStream(handler, fim(code({ stream: true })));

      expect(streamedContent(streamed.body)).toBe(whole.json.choices[0].message.content);
    });

    it("writes a usage record once the stream is done", async () => {
      await invokeStream(handler, fim(code({ stream: true })));

      expect(usageRecords()).toHaveLength(1);
      expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({ model: "codestral-latest", route: "POST /v1/fim/completions", status: 200 });
    });

    it("answers an unknown model with a normal 400 JSON body", async () => {
      const response = await invokeStream(handler, fim(code({ model: "no-such-model", stream: true })));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.metadata?.headers?.["content-type"]).toBe("application/json");
      expect(response.json.code).toBe("invalid_model");
    });

    it("ends a stream that fails after its first event with finish_reason error, then [DONE]", async () => {
      const offline = await providerNamed("offline");
      vi.spyOn(offline, "fimStream").mockImplementation(async function* (): AsyncGenerator<CompletionEvent> {
        yield { type: "delta", index: 0, content: "fib(" };
        throw new Error("connection reset");
      });

      const response = await invokeStream(handler, fim(code({ stream: true })));

      expect(ssePayloads(response.body).at(-1)).toBe("[DONE]");
      const chunks = sseChunks(response.body);
      expect(streamedContent(response.body)).toBe("fib(");
      expect(chunks.at(-1).choices).toStrictEqual([{ index: 0, delta: {}, finish_reason: "error" }]);
    });

    it("records a stream that failed after its first event as stream_error", async () => {
      const offline = await providerNamed("offline");
      vi.spyOn(offline, "fimStream").mockImplementation(async function* (): AsyncGenerator<CompletionEvent> {
        yield { type: "delta", index: 0, content: "fib(" };
        throw new Error("connection reset");
      });

      await invokeStream(handler, fim(code({ stream: true })));

      expect(usageRecords()).toHaveLength(1);
      expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({ status: "stream_error", route: "POST /v1/fim/completions" });
    });
  });
});
