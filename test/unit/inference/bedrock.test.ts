import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InternalServerException,
  InvokeModelCommand,
  ModelTimeoutException,
  ResourceNotFoundException,
  ServiceQuotaExceededException,
  ThrottlingException,
  ValidationException,
  type ContentBlock,
  type ConverseCommandOutput,
  type ConverseStreamCommandOutput,
  type ConverseStreamOutput,
  type InvokeModelCommandOutput,
  type StopReason,
} from "@aws-sdk/client-bedrock-runtime";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { ChatCompletionRequest } from "../../../shared/schemas/inference.js";
import { UnsupportedByProvider, UpstreamError, type CompletionEvent } from "../../../shared/inference/types.js";
import { BedrockProvider } from "../../../shared/inference/providers/bedrock.js";

const bedrock = mockClient(BedrockRuntimeClient);
const MODEL = "mistral.mistral-large-2407-v1:0";

beforeEach(() => {
  bedrock.reset();
});

function provider(): BedrockProvider {
  return new BedrockProvider({ client: new BedrockRuntimeClient({ region: "us-east-1" }) });
}

// ---------- request fixtures ----------

/** A validated chat request (defaults applied by the schema), one user turn unless `messages` is given. */
function chatRequest(fields: Record<string, unknown> = {}): ChatCompletionRequest {
  return ChatCompletionRequest.parse({ model: MODEL, messages: [user("Hello")], ...fields });
}

const system = (content: unknown) => ({ role: "system", content });
const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown, tool_calls?: unknown[]) => ({ role: "assistant", content, ...(tool_calls ? { tool_calls } : {}) });
const toolMessage = (tool_call_id: string, content: string) => ({ role: "tool", tool_call_id, content });
const toolCall = (id: string, name: string, args: unknown) => ({ id, type: "function", function: { name, arguments: args } });
const textChunk = (text: string) => ({ type: "text", text });
const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
/** Earlier turns in which the model called get_weather and got its result. */
const toolHistory = [
  user("Weather in Paris?"),
  assistant("", [toolCall("call_1", "get_weather", '{"city":"Paris"}')]),
  toolMessage("call_1", "18°C"),
];

// ---------- response fixtures (real ConverseCommandOutput shapes) ----------

function converseOutput(
  content: ContentBlock[],
  stopReason: StopReason = "end_turn",
  usage: { inputTokens: number; outputTokens: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number } = { inputTokens: 12, outputTokens: 5 },
): ConverseCommandOutput {
  return {
    $metadata: { httpStatusCode: 200 },
    output: { message: { role: "assistant", content } },
    stopReason,
    usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
    metrics: { latencyMs: 100 },
  };
}
const text = (value: string): ContentBlock => ({ text: value });
const toolUse = (toolUseId: string, name: string, input: Record<string, string>): ContentBlock => ({ toolUse: { toolUseId, name, input } });

/** The input of the n-th Converse call. */
function sentConverse(n = 0) {
  return bedrock.commandCalls(ConverseCommand)[n]!.args[0].input;
}

// ---------- stream fixtures (ConverseStreamOutput union members) ----------

async function* eventStream(events: ConverseStreamOutput[]): AsyncGenerator<ConverseStreamOutput> {
  for (const event of events) yield event;
}
function streamOutput(...events: ConverseStreamOutput[]): ConverseStreamCommandOutput {
  return { $metadata: { httpStatusCode: 200 }, stream: eventStream(events) };
}
const messageStart = (): ConverseStreamOutput => ({ messageStart: { role: "assistant" } });
const textDelta = (value: string, contentBlockIndex = 0): ConverseStreamOutput => ({ contentBlockDelta: { contentBlockIndex, delta: { text: value } } });
const toolStart = (contentBlockIndex: number, toolUseId: string, name: string): ConverseStreamOutput => ({
  contentBlockStart: { contentBlockIndex, start: { toolUse: { toolUseId, name } } },
});
const toolDelta = (contentBlockIndex: number, input: string): ConverseStreamOutput => ({
  contentBlockDelta: { contentBlockIndex, delta: { toolUse: { input } } },
});
const blockStop = (contentBlockIndex: number): ConverseStreamOutput => ({ contentBlockStop: { contentBlockIndex } });
const messageStop = (stopReason: StopReason = "end_turn"): ConverseStreamOutput => ({ messageStop: { stopReason } });
const metadata = (inputTokens: number, outputTokens: number): ConverseStreamOutput => ({
  metadata: { usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }, metrics: { latencyMs: 80 } },
});

async function collect(events: AsyncIterable<CompletionEvent>): Promise<CompletionEvent[]> {
  const out: CompletionEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

// ---------- embeddings fixtures (InvokeModel bodies) ----------

function invokeOutput(json: unknown): InvokeModelCommandOutput {
  const body = new TextEncoder().encode(JSON.stringify(json));
  return { $metadata: { httpStatusCode: 200 }, contentType: "application/json", body } as unknown as InvokeModelCommandOutput;
}
function sentBody(input: { body?: unknown }): Record<string, unknown> {
  const body = input.body;
  return JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body as Uint8Array)) as Record<string, unknown>;
}
function sentBodies(): Record<string, unknown>[] {
  return bedrock.commandCalls(InvokeModelCommand).map((call) => sentBody(call.args[0].input));
}
/** A recognisable vector for a text: its length, then a marker. */
const vectorOf = (value: string) => [value.length, 0.5];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------- errors ----------

function awsError(name: string, message = `${name} happened`): Error {
  const metadata = { $metadata: {}, message };
  switch (name) {
    case "ValidationException":
      return new ValidationException(metadata);
    case "AccessDeniedException":
      return new AccessDeniedException(metadata);
    case "ResourceNotFoundException":
      return new ResourceNotFoundException(metadata);
    case "ThrottlingException":
      return new ThrottlingException(metadata);
    case "ServiceQuotaExceededException":
      return new ServiceQuotaExceededException(metadata);
    case "ModelTimeoutException":
      return new ModelTimeoutException(metadata);
    case "InternalServerException":
      return new InternalServerException(metadata);
    default:
      return Object.assign(new Error(message), { name });
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("expected a rejection"),
    (error: unknown) => error,
  );
}

// =====================================================================

describe("BedrockProvider chat: the Converse request", () => {
  beforeEach(() => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("ok")]));
  });

  it("sends the model id and a user turn, and nothing else for a bare request", async () => {
    await provider().chat(chatRequest(), {});

    expect(sentConverse()).toEqual({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "Hello" }] }] });
  });

  it("concatenates every system message into the top-level system prompt", async () => {
    await provider().chat(chatRequest({ messages: [system("Be brief."), user("Hi"), system([textChunk("Answer in French.")])] }), {});

    expect(sentConverse().system).toEqual([{ text: "Be brief.\n\nAnswer in French." }]);
    expect(sentConverse().messages).toEqual([{ role: "user", content: [{ text: "Hi" }] }]);
  });

  it("merges adjacent turns of the same role so that user and assistant alternate", async () => {
    await provider().chat(chatRequest({ messages: [user("One"), user("Two"), assistant("A"), assistant("B"), user("Three")] }), {});

    expect(sentConverse().messages).toEqual([
      { role: "user", content: [{ text: "One\n\nTwo" }] },
      { role: "assistant", content: [{ text: "A\n\nB" }] },
      { role: "user", content: [{ text: "Three" }] },
    ]);
  });

  it("flattens text content chunks into one text block", async () => {
    await provider().chat(chatRequest({ messages: [user([textChunk("Hello, "), textChunk("world")])] }), {});

    expect(sentConverse().messages).toEqual([{ role: "user", content: [{ text: "Hello, world" }] }]);
  });

  it("maps assistant tool_calls to toolUse blocks, parsing string arguments", async () => {
    await provider().chat(chatRequest({ messages: [user("Weather?"), assistant("Checking.", [toolCall("call_1", "get_weather", '{"city":"Paris"}')])] }), {});

    expect(sentConverse().messages?.[1]).toEqual({
      role: "assistant",
      content: [{ text: "Checking." }, { toolUse: { toolUseId: "call_1", name: "get_weather", input: { city: "Paris" } } }],
    });
  });

  it("takes object tool-call arguments as the toolUse input as they are", async () => {
    await provider().chat(chatRequest({ messages: [user("Weather?"), assistant(null, [toolCall("call_1", "get_weather", { city: "Oslo" })])] }), {});

    expect(sentConverse().messages?.[1]?.content).toEqual([{ toolUse: { toolUseId: "call_1", name: "get_weather", input: { city: "Oslo" } } }]);
  });

  it("refuses tool-call arguments that are not JSON with a 400", async () => {
    const error = await rejection(provider().chat(chatRequest({ messages: [user("Q"), assistant(null, [toolCall("c", "f", "{not json")])] }), {}));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 400 });
    expect(bedrock.calls()).toHaveLength(0);
  });

  it("sends consecutive tool messages as one user turn of toolResult blocks", async () => {
    const calls = [toolCall("call_1", "get_weather", '{"city":"Paris"}'), toolCall("call_2", "get_weather", '{"city":"Oslo"}')];
    await provider().chat(
      chatRequest({ messages: [user("Weather?"), assistant("", calls), toolMessage("call_1", "18°C"), toolMessage("call_2", "4°C")], tools: [weatherTool] }),
      {},
    );

    expect(sentConverse().messages?.[2]).toEqual({
      role: "user",
      content: [
        { toolResult: { toolUseId: "call_1", content: [{ text: "18°C" }] } },
        { toolResult: { toolUseId: "call_2", content: [{ text: "4°C" }] } },
      ],
    });
  });

  it("declares tools as toolSpecs whose input schema is the function's parameters", async () => {
    await provider().chat(chatRequest({ tools: [weatherTool] }), {});

    expect(sentConverse().toolConfig).toEqual({
      tools: [{ toolSpec: { name: "get_weather", description: "Current weather for a city", inputSchema: { json: weatherTool.function.parameters } } }],
    });
  });

  it.each([
    ["auto", { auto: {} }],
    ["any", { any: {} }],
    ["required", { any: {} }],
    [{ type: "function", function: { name: "get_weather" } }, { tool: { name: "get_weather" } }],
  ])("maps tool_choice %j to the Converse toolChoice %j", async (toolChoice, expected) => {
    await provider().chat(chatRequest({ tools: [weatherTool], tool_choice: toolChoice }), {});

    expect(sentConverse().toolConfig?.toolChoice).toEqual(expected);
  });

  it("sends no toolChoice when the request names none", async () => {
    await provider().chat(chatRequest({ tools: [weatherTool] }), {});

    expect(sentConverse().toolConfig).not.toHaveProperty("toolChoice");
  });

  it("leaves the tools out for tool_choice none when the history has no tool use", async () => {
    await provider().chat(chatRequest({ tools: [weatherTool], tool_choice: "none" }), {});

    expect(sentConverse()).not.toHaveProperty("toolConfig");
  });

  it("keeps the tools without a toolChoice for tool_choice none when the history has tool use", async () => {
    await provider().chat(chatRequest({ messages: toolHistory, tools: [weatherTool], tool_choice: "none" }), {});

    expect(sentConverse().toolConfig).toEqual({
      tools: [{ toolSpec: { name: "get_weather", description: "Current weather for a city", inputSchema: { json: weatherTool.function.parameters } } }],
    });
  });

  it("declares the tools of the history with an open schema when the request has no tools", async () => {
    await provider().chat(chatRequest({ messages: toolHistory }), {});

    expect(sentConverse().toolConfig).toEqual({
      tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: { type: "object", properties: {} } } } }],
    });
  });

  it("maps max_tokens, temperature and top_p to inferenceConfig", async () => {
    await provider().chat(chatRequest({ max_tokens: 64, temperature: 0.2, top_p: 0.9 }), {});

    expect(sentConverse().inferenceConfig).toEqual({ maxTokens: 64, temperature: 0.2, topP: 0.9 });
  });

  it("leaves maxTokens out when max_tokens is 0", async () => {
    await provider().chat(chatRequest({ max_tokens: 0, temperature: 0 }), {});

    expect(sentConverse().inferenceConfig).toEqual({ temperature: 0 });
  });

  it("sends a stop string as a single stop sequence", async () => {
    await provider().chat(chatRequest({ stop: "###" }), {});

    expect(sentConverse().inferenceConfig).toEqual({ stopSequences: ["###"] });
  });

  it("sends a stop array as the stop sequences", async () => {
    await provider().chat(chatRequest({ stop: ["\n\n", "END"] }), {});

    expect(sentConverse().inferenceConfig).toEqual({ stopSequences: ["\n\n", "END"] });
  });

  it("ignores the fields Converse has no equivalent for", async () => {
    await provider().chat(
      chatRequest({
        random_seed: 7,
        presence_penalty: 0.5,
        frequency_penalty: 0.5,
        safe_prompt: true,
        prompt_mode: "reasoning",
        prediction: { type: "content", content: "x" },
        parallel_tool_calls: false,
      }),
      {},
    );

    expect(sentConverse()).toEqual({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "Hello" }] }] });
  });

  it("emulates response_format json_object with a system instruction after the system prompt", async () => {
    await provider().chat(chatRequest({ messages: [system("Be brief."), user("Hi")], response_format: { type: "json_object" } }), {});

    expect(sentConverse().system).toEqual([{ text: "Be brief." }, { text: expect.stringMatching(/only with a single valid JSON object/) }]);
  });

  it("puts the json_schema schema into the JSON instruction", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } } };
    await provider().chat(chatRequest({ response_format: { type: "json_schema", json_schema: { name: "out", schema } } }), {});

    expect(sentConverse().system).toEqual([{ text: expect.stringContaining(JSON.stringify(schema)) }]);
  });

  it("sends a data-URL image chunk as image bytes", async () => {
    const png = Buffer.from("fake png bytes");
    await provider().chat(chatRequest({ messages: [user([textChunk("What is this?"), { type: "image_url", image_url: `data:image/png;base64,${png.toString("base64")}` }])] }), {});

    expect(sentConverse().messages?.[0]?.content).toEqual([{ text: "What is this?" }, { image: { format: "png", source: { bytes: new Uint8Array(png) } } }]);
  });

  it("refuses an image given by remote URL with a 400, since nothing is downloaded", async () => {
    const error = await rejection(provider().chat(chatRequest({ messages: [user([{ type: "image_url", image_url: { url: "https://example.com/a.png" } }])] }), {}));

    expect(error).toMatchObject({ status: 400 });
  });

  it("gives the SDK an abort signal that fires when the caller's does", async () => {
    const controller = new AbortController();
    await provider().chat(chatRequest(), { signal: controller.signal });
    const options = (bedrock.call(0).args as unknown[])[1] as { abortSignal: AbortSignal };

    controller.abort();

    expect(options.abortSignal.aborted).toBe(true);
  });

  it("works without an injected client", async () => {
    const result = await new BedrockProvider({ region: "eu-west-3" }).chat(chatRequest(), {});

    expect(result.choices[0]?.content).toBe("ok");
  });
});

describe("BedrockProvider chat: the result", () => {
  it("joins the text blocks into the content and reports the token usage", async () => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("Hello "), text("there")], "end_turn", { inputTokens: 9, outputTokens: 3 }));

    const result = await provider().chat(chatRequest(), {});

    expect(result).toEqual({ choices: [{ content: "Hello there", toolCalls: [], finishReason: "stop" }], usage: { promptTokens: 9, completionTokens: 3 } });
  });

  it("returns toolUse blocks as function tool calls with JSON arguments", async () => {
    bedrock.on(ConverseCommand).resolves(converseOutput([toolUse("tooluse_abc", "get_weather", { city: "Paris" })], "tool_use"));

    const result = await provider().chat(chatRequest({ tools: [weatherTool] }), {});

    expect(result.choices[0]).toEqual({
      content: "",
      toolCalls: [{ id: "tooluse_abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      finishReason: "tool_calls",
    });
  });

  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["model_context_window_exceeded", "model_length"],
    ["guardrail_intervened", "error"],
    ["content_filtered", "error"],
    ["some_future_reason", "stop"],
  ])("maps the stop reason %s to the finish reason %s", async (stopReason, finishReason) => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("x")], stopReason as StopReason));

    const result = await provider().chat(chatRequest(), {});

    expect(result.choices[0]?.finishReason).toBe(finishReason);
  });

  it("makes n parallel Converse calls for n > 1 and indexes the choices in call order", async () => {
    bedrock
      .on(ConverseCommand)
      .resolvesOnce(converseOutput([text("first")]))
      .resolvesOnce(converseOutput([text("second")]))
      .resolvesOnce(converseOutput([text("third")]));

    const result = await provider().chat(chatRequest({ n: 3 }), {});

    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(3);
    expect(result.choices.map((choice) => choice.content)).toEqual(["first", "second", "third"]);
  });

  it("counts the prompt tokens once and sums the completion tokens for n > 1", async () => {
    bedrock
      .on(ConverseCommand)
      .resolvesOnce(converseOutput([text("a")], "end_turn", { inputTokens: 20, outputTokens: 4 }))
      .resolvesOnce(converseOutput([text("b")], "end_turn", { inputTokens: 20, outputTokens: 6 }));

    const result = await provider().chat(chatRequest({ n: 2 }), {});

    expect(result.usage).toEqual({ promptTokens: 20, completionTokens: 10 });
  });

  it("sends the same request for each of the n calls", async () => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("x")]));

    await provider().chat(chatRequest({ n: 2, temperature: 0.7 }), {});

    expect(sentConverse(1)).toEqual(sentConverse(0));
  });
});

describe("BedrockProvider errors", () => {
  it.each([
    ["ValidationException", 400],
    ["AccessDeniedException", 502],
    ["UnrecognizedClientException", 502],
    ["ResourceNotFoundException", 502],
    ["ThrottlingException", 429],
    ["ServiceQuotaExceededException", 429],
    ["ModelTimeoutException", 504],
    ["InternalServerException", 502],
    ["SomethingNewException", 502],
  ])("turns %s into an UpstreamError with status %i", async (name, status) => {
    bedrock.on(ConverseCommand).rejects(awsError(name));

    const error = await rejection(provider().chat(chatRequest(), {}));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status });
  });

  it("passes the validation message on to the client", async () => {
    bedrock.on(ConverseCommand).rejects(awsError("ValidationException", "A conversation must start with a user message."));

    const error = await rejection(provider().chat(chatRequest(), {}));

    expect(error).toMatchObject({ status: 400, message: "A conversation must start with a user message." });
  });

  it("says to check model access and IAM when Bedrock refuses", async () => {
    bedrock.on(ConverseCommand).rejects(awsError("AccessDeniedException"));

    const error = await rejection(provider().chat(chatRequest(), {}));

    expect((error as Error).message).toMatch(/refused.*check model access and IAM/);
  });

  it("lets an abort through unchanged", async () => {
    const abort = Object.assign(new Error("Request aborted"), { name: "AbortError" });
    bedrock.on(ConverseCommand).rejects(abort);

    expect(await rejection(provider().chat(chatRequest(), {}))).toBe(abort);
  });
});

describe("BedrockProvider chatStream", () => {
  it("yields text deltas, then the finish, then the usage", async () => {
    bedrock.on(ConverseStreamCommand).resolves(
      streamOutput(messageStart(), textDelta("Hel"), textDelta("lo"), blockStop(0), messageStop("end_turn"), metadata(7, 2)),
    );

    const events = await collect(provider().chatStream(chatRequest(), {}));

    expect(events).toEqual([
      { type: "delta", index: 0, content: "Hel" },
      { type: "delta", index: 0, content: "lo" },
      { type: "finish", index: 0, reason: "stop" },
      { type: "usage", promptTokens: 7, completionTokens: 2 },
    ]);
  });

  it("takes a text delta that comes without a contentBlockStart", async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(textDelta("Hi"), messageStop(), metadata(1, 1)));

    const events = await collect(provider().chatStream(chatRequest(), {}));

    expect(events[0]).toEqual({ type: "delta", index: 0, content: "Hi" });
  });

  it("sends the same Converse request as the non-streamed chat", async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(messageStop(), metadata(1, 0)));
    bedrock.on(ConverseCommand).resolves(converseOutput([text("x")]));
    const request = chatRequest({ messages: [system("S"), ...toolHistory], tools: [weatherTool], tool_choice: "auto", stop: "x", max_tokens: 5 });

    await collect(provider().chatStream(request, {}));
    await provider().chat(request, {});

    expect(bedrock.commandCalls(ConverseStreamCommand)[0]!.args[0].input).toEqual(sentConverse());
  });

  it("buffers a tool use until its contentBlockStop and yields the complete call once", async () => {
    bedrock.on(ConverseStreamCommand).resolves(
      streamOutput(
        messageStart(),
        toolStart(0, "tooluse_1", "get_weather"),
        toolDelta(0, '{"ci'),
        toolDelta(0, 'ty": "Pa'),
        toolDelta(0, 'ris"}'),
        blockStop(0),
        messageStop("tool_use"),
        metadata(30, 12),
      ),
    );

    const events = await collect(provider().chatStream(chatRequest({ tools: [weatherTool] }), {}));

    expect(events).toEqual([
      { type: "delta", index: 0, toolCalls: [{ id: "tooluse_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' }, index: 0 }] },
      { type: "finish", index: 0, reason: "tool_calls" },
      { type: "usage", promptTokens: 30, completionTokens: 12 },
    ]);
  });

  it("numbers several tool calls of one message and keeps the text before them", async () => {
    bedrock.on(ConverseStreamCommand).resolves(
      streamOutput(
        textDelta("Checking both."),
        blockStop(0),
        toolStart(1, "t1", "get_weather"),
        toolDelta(1, '{"city":"Paris"}'),
        blockStop(1),
        toolStart(2, "t2", "get_weather"),
        toolDelta(2, '{"city":"Oslo"}'),
        blockStop(2),
        messageStop("tool_use"),
      ),
    );

    const events = await collect(provider().chatStream(chatRequest({ tools: [weatherTool] }), {}));

    expect(events.map((event) => (event.type === "delta" ? (event.content ?? event.toolCalls?.map((call) => `${call.index}:${call.id}:${call.function.arguments}`)) : event.type))).toEqual([
      "Checking both.",
      ['0:t1:{"city":"Paris"}'],
      ['1:t2:{"city":"Oslo"}'],
      "finish",
    ]);
  });

  it("gives a tool call without input the arguments {}", async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(toolStart(0, "t1", "now"), blockStop(0), messageStop("tool_use")));

    const events = await collect(provider().chatStream(chatRequest(), {}));

    expect(events[0]).toMatchObject({ toolCalls: [{ function: { name: "now", arguments: "{}" } }] });
  });

  it("maps the messageStop reason like the non-streamed chat", async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(textDelta("cut"), messageStop("max_tokens"), metadata(3, 1)));

    const events = await collect(provider().chatStream(chatRequest(), {}));

    expect(events).toContainEqual({ type: "finish", index: 0, reason: "length" });
  });

  it.each([
    ["internalServerException", 502],
    ["modelStreamErrorException", 502],
    ["throttlingException", 429],
    ["validationException", 400],
    ["serviceUnavailableException", 502],
  ])("throws an UpstreamError with status %s → %i for an exception event, after the deltas before it", async (member, status) => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(textDelta("partial"), { [member]: { message: "boom" } } as unknown as ConverseStreamOutput));
    const seen: CompletionEvent[] = [];

    const error = await rejection(
      (async () => {
        for await (const event of provider().chatStream(chatRequest(), {})) seen.push(event);
      })(),
    );

    expect(seen).toEqual([{ type: "delta", index: 0, content: "partial" }]);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status });
  });

  it("maps an error the SDK throws while reading the stream", async () => {
    async function* failing(): AsyncGenerator<ConverseStreamOutput> {
      yield textDelta("a");
      throw awsError("ThrottlingException");
    }
    bedrock.on(ConverseStreamCommand).resolves({ $metadata: {}, stream: failing() });

    const error = await rejection(collect(provider().chatStream(chatRequest(), {})));

    expect(error).toMatchObject({ status: 429 });
  });

  it("maps a refusal of the stream request itself", async () => {
    bedrock.on(ConverseStreamCommand).rejects(awsError("AccessDeniedException"));

    const error = await rejection(collect(provider().chatStream(chatRequest(), {})));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 502 });
  });

  it("throws a 502 when the stream ends before messageStop", async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(textDelta("trunc")));

    const error = await rejection(collect(provider().chatStream(chatRequest(), {})));

    expect(error).toMatchObject({ status: 502 });
  });

  it("refuses n > 1 with a 400 on the first read, without calling Bedrock", async () => {
    const error = await rejection(collect(provider().chatStream(chatRequest({ n: 2 }), {})));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 400, message: expect.stringMatching(/^n > 1 cannot be streamed/) });
    expect(bedrock.calls()).toHaveLength(0);
  });

  it("calls Bedrock only once the stream is read", () => {
    provider().chatStream(chatRequest(), {});

    expect(bedrock.calls()).toHaveLength(0);
  });

  it("aborts the upstream stream when the consumer stops reading early", async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(textDelta("a"), textDelta("b"), messageStop()));

    for await (const _event of provider().chatStream(chatRequest(), {})) break;

    const options = (bedrock.call(0).args as unknown[])[1] as { abortSignal: AbortSignal };
    expect(options.abortSignal.aborted).toBe(true);
  });

  it("does not abort the upstream stream after reading it to the end", async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(textDelta("a"), messageStop()));

    await collect(provider().chatStream(chatRequest(), {}));

    const options = (bedrock.call(0).args as unknown[])[1] as { abortSignal: AbortSignal };
    expect(options.abortSignal.aborted).toBe(false);
  });
});

describe("BedrockProvider operations Bedrock has no model for", () => {
  const fim = { model: "codestral", prompt: "def f(", suffix: ")", stream: false, temperature: null, top_p: null };

  it("refuses FIM completion", async () => {
    await expect(provider().fim(fim, {})).rejects.toThrow(UnsupportedByProvider);
  });

  it("refuses streamed FIM completion on the first read", async () => {
    await expect(collect(provider().fimStream(fim, {}))).rejects.toThrow(new UnsupportedByProvider("bedrock", "fill-in-the-middle completion"));
  });

  it("refuses moderation", async () => {
    await expect(provider().moderate({ model: "m", inputs: ["x"] }, {})).rejects.toThrow(new UnsupportedByProvider("bedrock", "moderation"));
  });

  it("calls itself bedrock", () => {
    expect(provider().backend).toBe("bedrock");
  });
});

describe("BedrockProvider embed: Titan Text Embeddings v2", () => {
  const TITAN = "amazon.titan-embed-text-v2:0";
  /** Answers each text with its own vector and token count (the text's length), the slower the shorter. */
  function titanAnswers() {
    bedrock.on(InvokeModelCommand).callsFake(async (input: { body: Uint8Array }) => {
      const { inputText } = sentBody(input) as { inputText: string };
      await sleep(20 - inputText.length);
      return invokeOutput({ embedding: vectorOf(inputText), inputTextTokenCount: inputText.length, embeddingsByType: { float: vectorOf(inputText) } });
    });
  }

  it("makes one InvokeModel call per input with a 1024-dimension normalised request by default", async () => {
    titanAnswers();

    await provider().embed({ model: TITAN, inputs: ["a", "bb"] }, {});

    expect(bedrock.commandCalls(InvokeModelCommand).map((call) => call.args[0].input.modelId)).toEqual([TITAN, TITAN]);
    expect(sentBodies()).toEqual([
      { inputText: "a", dimensions: 1024, normalize: true },
      { inputText: "bb", dimensions: 1024, normalize: true },
    ]);
  });

  it("keeps the input order when answers come back out of order, and sums the token counts", async () => {
    titanAnswers();
    const inputs = ["a", "bbbbbbbbbb", "ccc", "dddddd"];

    const result = await provider().embed({ model: TITAN, inputs }, {});

    expect(result).toEqual({ vectors: inputs.map(vectorOf), promptTokens: 1 + 10 + 3 + 6 });
  });

  it("asks for the requested number of dimensions", async () => {
    titanAnswers();

    await provider().embed({ model: TITAN, inputs: ["a"], dimensions: 256 }, {});

    expect(sentBodies()[0]).toMatchObject({ dimensions: 256 });
  });

  it("refuses dimensions the model cannot produce with a 400, without calling Bedrock", async () => {
    const error = await rejection(provider().embed({ model: TITAN, inputs: ["a"], dimensions: 768 }, {}));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 400, message: expect.stringContaining("256, 512, 1024") });
    expect(bedrock.calls()).toHaveLength(0);
  });

  it("has at most 8 calls in flight at once", async () => {
    let inFlight = 0;
    let most = 0;
    bedrock.on(InvokeModelCommand).callsFake(async () => {
      most = Math.max(most, ++inFlight);
      await sleep(5);
      inFlight--;
      return invokeOutput({ embedding: [1], inputTextTokenCount: 1 });
    });

    const result = await provider().embed({ model: TITAN, inputs: Array.from({ length: 30 }, (_, i) => `t${i}`) }, {});

    expect(result.vectors).toHaveLength(30);
    expect(most).toBe(8);
  });

  it("maps a throttled call to a 429", async () => {
    bedrock.on(InvokeModelCommand).rejects(awsError("ThrottlingException"));

    const error = await rejection(provider().embed({ model: TITAN, inputs: ["a", "b"] }, {}));

    expect(error).toMatchObject({ status: 429 });
  });
});

describe("BedrockProvider embed: Cohere Embed", () => {
  /** Answers each batch with one vector per text, in the v4 shape (`embeddings.float`) unless told otherwise. */
  function cohereAnswers(shape: "v4" | "v3" = "v4", meta?: (texts: string[]) => unknown) {
    bedrock.on(InvokeModelCommand).callsFake(async (input: { body: Uint8Array }) => {
      const { texts } = sentBody(input) as { texts: string[] };
      const vectors = texts.map(vectorOf);
      return invokeOutput({
        id: "emb-1",
        texts,
        ...(shape === "v4" ? { embeddings: { float: vectors }, response_type: "embeddings_by_type" } : { embeddings: vectors, response_type: "embeddings_floats" }),
        ...(meta ? { meta: meta(texts) } : {}),
      });
    });
  }
  const inputs = (count: number) => Array.from({ length: count }, (_, i) => `text ${i}`);

  it("sends batches of at most 96 texts", async () => {
    cohereAnswers();

    await provider().embed({ model: "cohere.embed-english-v3", inputs: inputs(200) }, {});

    expect(sentBodies().map((body) => (body.texts as string[]).length)).toEqual([96, 96, 8]);
  });

  it("sends each v3 batch as search documents, truncated at the end, as floats", async () => {
    cohereAnswers();

    await provider().embed({ model: "cohere.embed-multilingual-v3", inputs: ["a", "b"] }, {});

    expect(sentBodies()).toEqual([{ texts: ["a", "b"], input_type: "search_document", truncate: "END", embedding_types: ["float"] }]);
  });

  it("keeps the input order across batches", async () => {
    cohereAnswers();
    const texts = inputs(150);

    const result = await provider().embed({ model: "cohere.embed-english-v3", inputs: texts }, {});

    expect(result.vectors).toEqual(texts.map(vectorOf));
  });

  it("reads the plain embeddings array of a v3 response", async () => {
    cohereAnswers("v3");

    const result = await provider().embed({ model: "cohere.embed-english-v3", inputs: ["abc"] }, {});

    expect(result.vectors).toEqual([vectorOf("abc")]);
  });

  it("sums the billed input tokens when the response reports them", async () => {
    cohereAnswers("v4", (texts) => ({ billed_units: { input_tokens: texts.length * 2 } }));

    const result = await provider().embed({ model: "cohere.embed-english-v3", inputs: inputs(100) }, {});

    expect(result.promptTokens).toBe(200);
  });

  it("leaves the token count undefined when the response does not report it", async () => {
    cohereAnswers();

    const result = await provider().embed({ model: "cohere.embed-english-v3", inputs: ["a"] }, {});

    expect(result.promptTokens).toBeUndefined();
  });

  it("asks Embed v4 for the requested dimensions with its own truncation name", async () => {
    cohereAnswers();

    await provider().embed({ model: "cohere.embed-v4:0", inputs: ["a"], dimensions: 512 }, {});

    expect(sentBodies()[0]).toEqual({ texts: ["a"], input_type: "search_document", truncate: "RIGHT", embedding_types: ["float"], output_dimension: 512 });
  });

  it("refuses dimensions other than 1024 for Embed v3 with a 400", async () => {
    const error = await rejection(provider().embed({ model: "cohere.embed-english-v3", inputs: ["a"], dimensions: 512 }, {}));

    expect(error).toMatchObject({ status: 400 });
    expect(bedrock.calls()).toHaveLength(0);
  });

  it("reports a response with the wrong number of vectors as a 502", async () => {
    bedrock.on(InvokeModelCommand).resolves(invokeOutput({ embeddings: { float: [[1]] } }));

    const error = await rejection(provider().embed({ model: "cohere.embed-english-v3", inputs: ["a", "b"] }, {}));

    expect(error).toMatchObject({ status: 502 });
  });
});

describe("BedrockProvider embed: other models", () => {
  it("refuses a model that is neither Titan nor Cohere", async () => {
    await expect(provider().embed({ model: "mistral.mistral-large-2407-v1:0", inputs: ["a"] }, {})).rejects.toThrow(UnsupportedByProvider);
  });

  it("recognises a Titan model behind an inference-profile prefix", async () => {
    bedrock.on(InvokeModelCommand).resolves(invokeOutput({ embedding: [0.1], inputTextTokenCount: 2 }));

    const result = await provider().embed({ model: "us.amazon.titan-embed-text-v2:0", inputs: ["a"] }, {});

    expect(result).toEqual({ vectors: [[0.1]], promptTokens: 2 });
  });
});

describe("the Bedrock client", () => {
  it("tries each call once: the router owns retries (docs/routing.md)", async () => {
    const { sharedClient } = await import("../../../shared/inference/providers/bedrock.js");

    expect(await sharedClient("eu-west-1").config.maxAttempts()).toBe(1);
  });
});

describe("prompt caching (a model whose catalog entry says prompt_caching)", () => {
  const cachePoint = { cachePoint: { type: "default" } };

  it("ends the system prompt, the tools and the conversation with a cache point when asked, and only then", async () => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("ok")]));
    const request = chatRequest({ messages: [system("Be brief."), user("Hello")], tools: [weatherTool] });

    await provider().chat(request, { promptCaching: true });
    await provider().chat(request, {});

    const [cached, plain] = [sentConverse(0), sentConverse(1)];
    expect(cached.system).toStrictEqual([{ text: "Be brief." }, cachePoint]);
    expect(cached.toolConfig!.tools!.at(-1)).toStrictEqual(cachePoint);
    expect(cached.messages!.at(-1)!.content).toStrictEqual([{ text: "Hello" }, cachePoint]);
    expect(JSON.stringify(plain)).not.toContain("cachePoint");
  });

  it("counts the tokens read from and written to the cache in the prompt, the ones read as cached", async () => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("ok")], "end_turn", { inputTokens: 40, outputTokens: 3, cacheReadInputTokens: 1500, cacheWriteInputTokens: 60 }));

    const result = await provider().chat(chatRequest(), { promptCaching: true });

    expect(result.usage).toStrictEqual({ promptTokens: 1600, completionTokens: 3, cachedTokens: 1500 });
  });

  it("reports a stream's cached tokens in its usage event", async () => {
    const usage: ConverseStreamOutput = { metadata: { usage: { inputTokens: 10, outputTokens: 2, totalTokens: 1012, cacheReadInputTokens: 1000 }, metrics: { latencyMs: 80 } } };
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(messageStart(), textDelta("hi"), messageStop(), usage));

    const events = await collect(provider().chatStream(chatRequest(), { promptCaching: true }));

    expect(events.at(-1)).toStrictEqual({ type: "usage", promptTokens: 1010, completionTokens: 2, cachedTokens: 1000 });
    expect(JSON.stringify(bedrock.commandCalls(ConverseStreamCommand)[0]!.args[0].input.messages)).toContain("cachePoint");
  });
});

describe("Bedrock Guardrails (a deployment whose catalog entry names one)", () => {
  const guardrail = { id: "gr1abc2def3", version: "2" };
  const named = { guardrailIdentifier: "gr1abc2def3", guardrailVersion: "2" };

  it("names the deployment's guardrail in each Converse call, and no guardrail without one", async () => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("ok")]));

    await provider().chat(chatRequest(), { guardrail });
    await provider().chat(chatRequest(), {});

    expect(sentConverse(0).guardrailConfig).toStrictEqual(named);
    expect(sentConverse(1)).not.toHaveProperty("guardrailConfig");
  });

  it("names it in a stream's ConverseStream call too (Bedrock's default synchronous processing)", async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput(messageStart(), textDelta("hi"), messageStop(), metadata(1, 1)));

    await collect(provider().chatStream(chatRequest(), { guardrail }));

    expect(bedrock.commandCalls(ConverseStreamCommand)[0]!.args[0].input.guardrailConfig).toStrictEqual(named);
  });

  it("answers the guardrail's own message with finish_reason error when it intervenes", async () => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("Sorry, the model cannot answer this question.")], "guardrail_intervened"));

    const result = await provider().chat(chatRequest(), { guardrail });

    expect(result.choices[0]).toMatchObject({ content: "Sorry, the model cannot answer this question.", finishReason: "error" });
  });

  it("sends no Mistral guardrails to Converse: the platform ran them before the call", async () => {
    bedrock.on(ConverseCommand).resolves(converseOutput([text("ok")]));

    await provider().chat(chatRequest({ guardrails: [{ moderation_llm_v1: { action: "block" } }] }), {});

    expect(JSON.stringify(sentConverse(0))).not.toContain("moderation_llm");
    expect(sentConverse(0)).not.toHaveProperty("guardrailConfig");
  });
});
