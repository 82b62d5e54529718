import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { type Chunk, contextLengthOf, inferenceClient, offlineEcho, offlineFim, type SseFrame, streamedText, userSays } from "../../support/inference-client.js";

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);

const usageOf = (body: { usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } }) => body.usage;

/** What every completion stream must look like on the wire, whatever it says. */
function expectWellFormedStream(frames: SseFrame[], chunks: Chunk[], model: string): void {
  expect(frames.length).toBeGreaterThanOrEqual(3);
  for (const frame of frames) {
    expect(frame.terminated).toBe(true);
    expect(frame.fields.every((f) => f === "data")).toBe(true);
  }
  expect(frames.at(-1)!.data).toBe("[DONE]");
  expect(frames.filter((f) => f.data === "[DONE]")).toHaveLength(1);
  expect(chunks).toHaveLength(frames.length - 1);
  const ids = new Set(chunks.map((c) => c.id));
  expect(ids.size).toBe(1);
  for (const chunk of chunks) expect(chunk).toMatchObject({ object: "chat.completion.chunk", model });
  expect(chunks[0]!.choices).toEqual([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
  // Only the last chunk finishes and carries usage.
  const last = chunks.at(-1)!;
  expect(last.usage).toBeDefined();
  expect(last.choices.every((c) => c.finish_reason !== null)).toBe(true);
  for (const chunk of chunks.slice(0, -1)) {
    expect(chunk.usage).toBeUndefined();
    expect(chunk.choices.every((c) => c.finish_reason === null)).toBe(true);
  }
}

describe("POST /v1/chat/completions", () => {
  it("answers the labelled echo of the last user message, with usage and the backend", async () => {
    const reply = await client.chat({
      model: "mistral-small-latest",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "first question" },
        { role: "assistant", content: "first answer" },
        { role: "user", content: "what is the capital of France?" },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
    expect(reply.body).toMatchObject({
      object: "chat.completion",
      model: "mistral-small-latest",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: offlineEcho("what is the capital of France?"), tool_calls: null },
          finish_reason: "stop",
        },
      ],
    });
    expect(reply.body.id).toMatch(/^cmpl-/);
    expect(reply.body.created).toBeCloseTo(Date.now() / 1000, -2);
    const usage = usageOf(reply.body);
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it("counts a longer prompt as more prompt tokens", async () => {
    const short = await client.chat(userSays("mistral-small-latest", "hi"));
    const long = await client.chat(userSays("mistral-small-latest", "hi ".repeat(50)));
    expect(long.body.usage.prompt_tokens).toBeGreaterThan(short.body.usage.prompt_tokens + 40);
  });

  it("answers under the canonical id when called by an alias", async () => {
    const reply = await client.chat(userSays("mistral-small", "alias call"));
    expect(reply.status).toBe(200);
    expect(reply.body.model).toBe("mistral-small-latest");
  });

  it("cuts the answer at max_tokens with finish_reason length", async () => {
    const reply = await client.chat(userSays("mistral-small-latest", "tell me a long story", { max_tokens: 3 }));
    expect(reply.status).toBe(200);
    const [choice] = reply.body.choices;
    expect(choice.finish_reason).toBe("length");
    expect(reply.body.usage.completion_tokens).toBeLessThanOrEqual(3);
    expect(offlineEcho("tell me a long story").startsWith(choice.message.content)).toBe(true);
    expect(choice.message.content.length).toBeLessThan(offlineEcho("tell me a long story").length);
  });

  it("refuses a prompt plus max_tokens over the context length with 400, and takes exactly the context length", async () => {
    const request = userSays("mistral-small-latest", "how long can you answer?");
    const { prompt_tokens } = (await client.chat(request)).body.usage;
    const fits = await client.chat({ ...request, max_tokens: contextLengthOf("mistral-small-latest") - prompt_tokens });
    expect(fits.status).toBe(200);
    const over = await client.chat({ ...request, max_tokens: contextLengthOf("mistral-small-latest") - prompt_tokens + 1 });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ type: "invalid_request_error", code: "context_length_exceeded", param: "max_tokens" });
    const huge = await client.chatStream({ ...request, max_tokens: 1_000_000 });
    expect(huge.status).toBe(400);
    expect(huge.headers.get("content-type")).toBe("application/json");
    expect(huge.body).toMatchObject({ code: "context_length_exceeded" });
  });

  it("answers n choices", async () => {
    const reply = await client.chat(userSays("mistral-large-latest", "twice", { n: 2 }));
    expect(reply.body.choices.map((c: { index: number }) => c.index)).toEqual([0, 1]);
    for (const choice of reply.body.choices) expect(choice.message.content).toBe(offlineEcho("twice"));
  });

  it("refuses unknown models (400 invalid_model), models without chat (400) and malformed requests (422)", async () => {
    const unknown = await client.chat(userSays("no-such-model", "hi"));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "invalid_model", param: "model" });
    const embed = await client.chat(userSays("mistral-embed", "hi"));
    expect(embed.status).toBe(400);
    expect(embed.body).toMatchObject({ code: "model_capability_missing", param: "model" });
    const noMessages = await client.chat({ model: "mistral-small-latest", messages: [] });
    expect(noMessages.status).toBe(422);
    const badTemperature = await client.chat(userSays("mistral-small-latest", "hi", { temperature: 3 }));
    expect(badTemperature.status).toBe(422);
  });

  describe("streamed", () => {
    it("streams data-only frames ending with [DONE], as an event stream with the backend header", async () => {
      const streamed = await client.chatStreamed(userSays("mistral-small-latest", "stream this please"));
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get("content-type")).toBe("text/event-stream");
      expect(streamed.headers.get("x-inference-backend")).toBe("offline");
      expectWellFormedStream(streamed.frames, streamed.chunks, "mistral-small-latest");
      expect(streamed.chunks.at(-1)!.choices).toEqual([{ index: 0, delta: {}, finish_reason: "stop" }]);
      // The answer comes in several deltas, not one.
      expect(streamed.chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(3);
    });

    it("streams the same text and usage as the plain call", async () => {
      const request = userSays("mistral-small-latest", "same words either way");
      const plain = await client.chat(request);
      const streamed = await client.chatStreamed(request);
      expect(streamed.text).toBe(plain.body.choices[0].message.content);
      expect(streamed.chunks.at(-1)!.usage).toEqual(plain.body.usage);
    });

    it("streams a cut answer with finish_reason length, as the plain call does", async () => {
      const request = userSays("mistral-small-latest", "a long one", { max_tokens: 4 });
      const plain = await client.chat(request);
      const streamed = await client.chatStreamed(request);
      expect(streamed.text).toBe(plain.body.choices[0].message.content);
      expect(streamed.chunks.at(-1)!.choices[0]!.finish_reason).toBe("length");
      expect(streamed.chunks.at(-1)!.usage).toEqual(plain.body.usage);
    });

    it("streams n choices, each finished in the last chunk, with the plain call's text and usage", async () => {
      const request = userSays("mistral-large-latest", "both of you", { n: 2 });
      const plain = await client.chat(request);
      const streamed = await client.chatStreamed(request);
      expectWellFormedStream(streamed.frames, streamed.chunks, "mistral-large-latest");
      expect(streamedText(streamed.chunks, 0)).toBe(offlineEcho("both of you"));
      expect(streamedText(streamed.chunks, 1)).toBe(offlineEcho("both of you"));
      expect(streamed.chunks.at(-1)!.choices).toEqual([
        { index: 0, delta: {}, finish_reason: "stop" },
        { index: 1, delta: {}, finish_reason: "stop" },
      ]);
      expect(streamed.chunks.at(-1)!.usage).toEqual(plain.body.usage);
    });

    it("answers a normal JSON error, not a stream, when the request fails before the first byte", async () => {
      const unknown = await client.chatStream(userSays("no-such-model", "hi"));
      expect(unknown.status).toBe(400);
      expect(unknown.headers.get("content-type")).toBe("application/json");
      expect(unknown.body).toMatchObject({ code: "invalid_model" });
    });
  });
});

describe("POST /v1/fim/completions", () => {
  const prompt = "def fibonacci(n):\n    if n < 2:\n        return n\n    return fib";

  it("answers the labelled echo of the prompt's last line, with usage and the backend", async () => {
    const reply = await client.fim({ model: "codestral-latest", prompt, suffix: "\n\nprint(fibonacci(10))" });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
    expect(reply.body).toMatchObject({
      object: "chat.completion",
      model: "codestral-latest",
      choices: [{ index: 0, message: { role: "assistant", content: offlineFim("    return fib") }, finish_reason: "stop" }],
    });
    const usage = usageOf(reply.body);
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it("counts the suffix as prompt", async () => {
    const without = await client.fim({ model: "codestral-latest", prompt });
    const withSuffix = await client.fim({ model: "codestral-latest", prompt, suffix: " and a rather long suffix ".repeat(10) });
    expect(withSuffix.body.usage.prompt_tokens).toBeGreaterThan(without.body.usage.prompt_tokens);
  });

  it("is served under an alias too", async () => {
    const reply = await client.fim({ model: "codestral-2405", prompt: "x = " });
    expect(reply.status).toBe(200);
    expect(reply.body.model).toBe("codestral-latest");
  });

  it("refuses a model without FIM (400) and a context overflow (400)", async () => {
    const chatOnly = await client.fim({ model: "mistral-small-latest", prompt });
    expect(chatOnly.status).toBe(400);
    expect(chatOnly.body).toMatchObject({ code: "model_capability_missing", param: "model" });
    expect(chatOnly.body.message).toContain("completion_fim");
    const over = await client.fim({ model: "codestral-latest", prompt, max_tokens: contextLengthOf("codestral-latest") });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: "context_length_exceeded", param: "max_tokens" });
  });

  it("streams data-only frames ending with [DONE], the same text and usage as the plain call", async () => {
    const request = { model: "codestral-latest", prompt, suffix: "\n" };
    const plain = await client.fim(request);
    const streamed = await client.fimStreamed(request);
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("content-type")).toBe("text/event-stream");
    expect(streamed.headers.get("x-inference-backend")).toBe("offline");
    expectWellFormedStream(streamed.frames, streamed.chunks, "codestral-latest");
    expect(streamed.text).toBe(plain.body.choices[0].message.content);
    expect(streamed.chunks.at(-1)!.usage).toEqual(plain.body.usage);
    expect(streamed.chunks.at(-1)!.choices).toEqual([{ index: 0, delta: {}, finish_reason: "stop" }]);
  });
});
