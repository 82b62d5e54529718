/**
 * Embeddings, FIM and chat completions driven by the official, unmodified SDK (`@mistralai/mistralai`)
 * against the local server and its offline provider. Plain answers must parse into the SDK's response
 * shapes; streams must parse frame by frame (a frame failing the SDK's schema throws a raw ZodError
 * mid-iteration), end at `[DONE]`, and carry the same text as the plain answer.
 */
import { Mistral } from "@mistralai/mistralai";
import type { CompletionEvent } from "@mistralai/mistralai/models/components";
import { HTTPValidationError, ResponseValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { contextLengthOf } from "../support/inference-client.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const sdk = (apiKey: string) => sdkClient(api, apiKey);
let client: Mistral;
beforeAll(() => {
  client = sdk(tenant.key);
});

/** Content as a string: the SDK types it as `string | ContentChunk[]`; the offline provider sends strings. */
function textOf(content: unknown): string {
  if (content === null || content === undefined) return "";
  expect(typeof content, `content should be a string, got ${JSON.stringify(content)}`).toBe("string");
  return content as string;
}

/** Drains an SDK event stream: every chunk, the concatenated first-choice text, and the finish reasons seen. */
async function drain(stream: AsyncIterable<CompletionEvent>) {
  const chunks: CompletionEvent["data"][] = [];
  let text = "";
  for await (const event of stream) {
    chunks.push(event.data);
    for (const choice of event.data.choices) {
      if (choice.index === 0) text += textOf(choice.delta.content);
    }
  }
  return { chunks, text, last: chunks.at(-1) };
}

/** What the server writes on the wire for a streamed call, read with a plain fetch (to see the terminator). */
async function rawStream(path: string, body: unknown): Promise<{ status: number; contentType: string | null; text: string }> {
  const response = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
}

describe("embeddings.create", () => {
  it("returns one 1024-long vector per input, with usage", async () => {
    const out = await client.embeddings.create({ model: "mistral-embed", inputs: ["hello", "world"] });
    expect(out).toMatchObject({ object: "list", model: "mistral-embed", id: expect.any(String) });
    expect(out.data).toHaveLength(2);
    expect(out.data.map((d) => d.index)).toEqual([0, 1]);
    for (const item of out.data) {
      expect(item.object).toBe("embedding");
      expect(item.embedding).toHaveLength(1024);
      expect(item.embedding!.every((x) => Number.isFinite(x))).toBe(true);
      // Feature-hashing vectors are L2-normalised.
      expect(Math.hypot(...item.embedding!)).toBeCloseTo(1, 5);
    }
    expect(out.data[0]!.embedding).not.toEqual(out.data[1]!.embedding);
    expect(out.usage.promptTokens).toBeGreaterThan(0);
    expect(out.usage.totalTokens).toBe(out.usage.promptTokens);
    expect(out.usage.completionTokens).toBe(0);
  });

  it("honours outputDimension and a single string input", async () => {
    const out = await client.embeddings.create({ model: "mistral-embed", inputs: "hello", outputDimension: 256 });
    expect(out.data).toHaveLength(1);
    expect(out.data[0]!.embedding).toHaveLength(256);
  });

  // Known mismatch, reported, not fixed here: the SDK offers encodingFormat "base64" but its response
  // schema (EmbeddingResponseData.embedding) is `number[]`, so the base64 string the server answers with
  // fails validation. The server side is checked on the raw body the error carries.
  it("encodingFormat base64: the server answers base64 floats, which the SDK's number[] schema rejects", async () => {
    const error = await errorOf(client.embeddings.create({ model: "mistral-embed", inputs: ["hello"], encodingFormat: "base64" }), ResponseValidationError);
    expect(error.statusCode).toBe(200);
    const raw = JSON.parse(error.body) as { data: { embedding: string }[] };
    const floats = new Float32Array(Buffer.from(raw.data[0]!.embedding, "base64").buffer.slice(0));
    expect(floats).toHaveLength(1024);
    const plain = await client.embeddings.create({ model: "mistral-embed", inputs: ["hello"] });
    expect(floats[0]).toBeCloseTo(plain.data[0]!.embedding![0]!, 6);
  });

  it("refuses a chat model with a 400 SDKError", async () => {
    const error = await errorOf(client.embeddings.create({ model: "mistral-small-latest", inputs: ["x"] }), SDKError);
    expect(error.statusCode).toBe(400);
    expect(JSON.parse(error.body)).toMatchObject({ object: "error", code: "model_capability_missing" });
  });
});

describe("fim", () => {
  const request = { model: "codestral-latest", prompt: "def add(a, b):\n    return", suffix: "\n\nprint(add(1, 2))" };

  it("complete returns a parsed completion with usage", async () => {
    const out = await client.fim.complete(request);
    expect(out).toMatchObject({ model: "codestral-latest", id: expect.any(String), created: expect.any(Number) });
    expect(out.choices).toHaveLength(1);
    const choice = out.choices[0]!;
    expect(choice.finishReason).toBe("stop");
    expect(choice.message?.role).toBe("assistant");
    expect(textOf(choice.message?.content)).toContain("return");
    expect(out.usage.promptTokens).toBeGreaterThan(0);
    expect(out.usage.completionTokens).toBeGreaterThan(0);
    expect(out.usage.totalTokens).toBe(out.usage.promptTokens! + out.usage.completionTokens!);
  });

  it("stream carries the same text, ends at [DONE], and its last chunk has a finish reason", async () => {
    const plain = await client.fim.complete(request);
    const { chunks, text, last } = await drain(await client.fim.stream(request));
    expect(chunks.length).toBeGreaterThan(2);
    expect(text).toBe(textOf(plain.choices[0]!.message?.content));
    for (const chunk of chunks.slice(0, -1)) expect(chunk.choices.every((c) => c.finishReason === null)).toBe(true);
    expect(last!.choices[0]!.finishReason).toBe("stop");
    expect(last!.usage).toMatchObject({ promptTokens: plain.usage.promptTokens, completionTokens: plain.usage.completionTokens });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.model === "codestral-latest")).toBe(true);
  });

  it("writes data: [DONE] as its last frame on the wire", async () => {
    const raw = await rawStream("/v1/fim/completions", { ...request, stream: true });
    expect(raw.status).toBe(200);
    expect(raw.contentType).toMatch(/^text\/event-stream/);
    expect(raw.text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(raw.text.match(/data: \[DONE\]/g)).toHaveLength(1);
  });

  it("stops at maxTokens with finish reason length, plain and streamed alike", async () => {
    const limited = { ...request, maxTokens: 3 };
    const plain = await client.fim.complete(limited);
    expect(plain.choices[0]!.finishReason).toBe("length");
    const { text, last } = await drain(await client.fim.stream(limited));
    expect(text).toBe(textOf(plain.choices[0]!.message?.content));
    expect(last!.choices[0]!.finishReason).toBe("length");
  });

  it("refuses a model without FIM with a 400 SDKError", async () => {
    const error = await errorOf(client.fim.complete({ ...request, model: "mistral-small-latest" }), SDKError);
    expect(error.statusCode).toBe(400);
    expect(JSON.parse(error.body)).toMatchObject({ code: "model_capability_missing" });
  });
});

describe("chat", () => {
  const request = { model: "mistral-small-latest", messages: [{ role: "user" as const, content: "What is the capital of France?" }] };

  it("complete returns a parsed completion with usage", async () => {
    const out = await client.chat.complete(request);
    expect(out).toMatchObject({ model: "mistral-small-latest", object: "chat.completion", id: expect.any(String) });
    expect(out.choices).toHaveLength(1);
    const choice = out.choices[0]!;
    expect(choice.finishReason).toBe("stop");
    expect(choice.message?.role).toBe("assistant");
    expect(textOf(choice.message?.content)).toContain("What is the capital of France?");
    expect(choice.message?.toolCalls ?? null).toBeNull();
    expect(out.usage.promptTokens).toBeGreaterThan(0);
    expect(out.usage.totalTokens).toBe(out.usage.promptTokens! + out.usage.completionTokens!);
  });

  it("stream carries the same text, ends at [DONE], and its last chunk has a finish reason", async () => {
    const plain = await client.chat.complete(request);
    const { chunks, text, last } = await drain(await client.chat.stream(request));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(text).toBe(textOf(plain.choices[0]!.message?.content));
    expect(last!.choices[0]!.finishReason).toBe("stop");
    expect(last!.usage).toMatchObject({ promptTokens: plain.usage.promptTokens, completionTokens: plain.usage.completionTokens });
    const raw = await rawStream("/v1/chat/completions", { ...request, stream: true });
    expect(raw.text.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("alias resolves, and the answer names the canonical model", async () => {
    const out = await client.chat.complete({ ...request, model: "mistral-small" });
    expect(out.model).toBe("mistral-small-latest");
  });

  const tools = [
    {
      type: "function" as const,
      function: {
        name: "get_weather",
        description: "The weather in a city",
        parameters: { type: "object", properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } }, required: ["city", "unit"] },
      },
    },
  ];

  it("returns toolCalls with toolChoice any", async () => {
    const out = await client.chat.complete({ ...request, tools, toolChoice: "any" });
    const choice = out.choices[0]!;
    expect(choice.finishReason).toBe("tool_calls");
    expect(choice.message?.toolCalls).toHaveLength(1);
    const call = choice.message!.toolCalls![0]!;
    expect(call.function.name).toBe("get_weather");
    const args = typeof call.function.arguments === "string" ? JSON.parse(call.function.arguments) : call.function.arguments;
    expect(args).toEqual({ city: "[offline]", unit: "c" });
  });

  it("streams toolCalls with toolChoice any", async () => {
    const { chunks, last } = await drain(await client.chat.stream({ ...request, tools, toolChoice: "any" }));
    const calls = chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.toolCalls ?? []));
    expect(calls.map((c) => c.function.name)).toEqual(["get_weather"]);
    expect(last!.choices[0]!.finishReason).toBe("tool_calls");
  });
});

describe("errors", () => {
  it("unknown model: 400 SDKError invalid_model (as Mistral answers), plain and streamed", async () => {
    // Thunks, one call at a time: a rejected promise nobody awaits yet is an unhandled rejection.
    for (const call of [
      () => client.chat.complete({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }),
      () => client.chat.stream({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }),
      () => client.fim.complete({ model: "no-such-model", prompt: "x" }),
      () => client.fim.stream({ model: "no-such-model", prompt: "x" }),
      () => client.embeddings.create({ model: "no-such-model", inputs: ["x"] }),
    ]) {
      const error = await errorOf(call(), SDKError);
      expect(error.statusCode).toBe(400);
      expect(error.contentType).toMatch(/^application\/json/);
      expect(JSON.parse(error.body)).toMatchObject({ object: "error", type: "invalid_request_error", code: "invalid_model", param: "model" });
    }
  });

  it("context length exceeded: 400 SDKError, plain and streamed", async () => {
    const tooLong = { model: "mistral-small-latest", messages: [{ role: "user" as const, content: "hi" }], maxTokens: contextLengthOf("mistral-small-latest") };
    for (const call of [
      () => client.chat.complete(tooLong),
      () => client.chat.stream(tooLong),
      () => client.fim.complete({ model: "codestral-latest", prompt: "x", maxTokens: contextLengthOf("codestral-latest") }),
    ]) {
      const error = await errorOf(call(), SDKError);
      expect(error.statusCode).toBe(400);
      expect(JSON.parse(error.body)).toMatchObject({ object: "error", type: "invalid_request_error", code: "context_length_exceeded", param: "max_tokens" });
    }
  });

  it("invalid body: temperature 5 passes the SDK (no range check) and the server answers 422 HTTPValidationError", async () => {
    const error = await errorOf(client.chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "hi" }], temperature: 5 }), HTTPValidationError);
    expect(error.statusCode).toBe(422);
    expect(error.detail).toEqual([expect.objectContaining({ loc: ["body", "temperature"], type: "less_than_equal" })]);
    const fimError = await errorOf(client.fim.stream({ model: "codestral-latest", prompt: "x", topP: 0 }), HTTPValidationError);
    expect(fimError.statusCode).toBe(422);
    expect(fimError.detail?.[0]?.loc).toEqual(["body", "top_p"]);
  });

  it("a bad key: 401 SDKError", async () => {
    const error = await errorOf(sdk("pak_not-a-real-key-at-all").chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "hi" }] }), SDKError);
    expect(error.statusCode).toBe(401);
  });
});
