import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { OFFLINE_LABEL, OFFLINE_THINKING, OfflineProvider } from "../../../shared/inference/providers/offline.js";
import { countTokens } from "../../../shared/inference/tokenizer.js";
import type { CompletionEvent, LiveAudio, TranscriptionEvent } from "../../../shared/inference/types.js";
import { ChatCompletionRequest, FimCompletionRequest } from "../../../shared/schemas/inference.js";

const provider = new OfflineProvider();
const v3 = { countTokens: (text: string) => countTokens("v3", text) };

const chatRequest = (extra: Record<string, unknown> = {}) =>
  ChatCompletionRequest.parse({ model: "offline-echo", messages: [{ role: "user", content: "What is the capital of France?" }], ...extra });
const fimRequest = (extra: Record<string, unknown> = {}) => FimCompletionRequest.parse({ model: "offline-fim", prompt: "def add(a, b):\n    return a", ...extra });
const ECHO = "[offline] No language model is configured. You said: «What is the capital of France?»";

async function collect(events: AsyncIterable<CompletionEvent>): Promise<CompletionEvent[]> {
  const out: CompletionEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}
const joined = (events: CompletionEvent[], index = 0) =>
  events
    .filter((e): e is Extract<CompletionEvent, { type: "delta" }> => e.type === "delta" && e.index === index)
    .map((e) => e.content ?? "")
    .join("");

const tool = (name: string, parameters: Record<string, unknown>) => ({ type: "function", function: { name, parameters } });
const argumentsOf = async (tools: unknown[], toolChoice: unknown) => {
  const out = await provider.chat(chatRequest({ tools, tool_choice: toolChoice }), {});
  return JSON.parse(out.choices[0]!.toolCalls[0]!.function.arguments as string);
};

describe("offline chat", () => {
  it("names itself as the offline backend", () => {
    expect(provider.backend).toBe("offline");
  });

  it("answers a labelled echo of the last user message", async () => {
    const out = await provider.chat(chatRequest(), v3);

    expect(out.choices).toStrictEqual([{ content: ECHO, toolCalls: [], finishReason: "stop" }]);
  });

  it("starts every answer with the offline label", async () => {
    const out = await provider.chat(chatRequest(), v3);

    expect(out.choices[0]!.content.startsWith(OFFLINE_LABEL)).toBe(true);
  });

  it("echoes the last user message, not the system prompt or earlier turns", async () => {
    const messages = [
      { role: "system", content: "You are a pirate." },
      { role: "user", content: "First question" },
      { role: "assistant", content: "An answer" },
      { role: "user", content: "Second question" },
    ];

    const out = await provider.chat(chatRequest({ messages }), v3);

    expect(out.choices[0]!.content).toBe("[offline] No language model is configured. You said: «Second question»");
  });

  it("echoes the text chunks of structured content", async () => {
    const messages = [{ role: "user", content: [{ type: "text", text: "Look at " }, { type: "image_url", image_url: "https://x.test/a.png" }, { type: "text", text: "this" }] }];

    const out = await provider.chat(chatRequest({ messages }), v3);

    expect(out.choices[0]!.content).toBe("[offline] No language model is configured. You said: «Look at this»");
  });

  it("invents nothing when there is no user message: the quote is empty", async () => {
    const out = await provider.chat(chatRequest({ messages: [{ role: "system", content: "Be helpful." }] }), v3);

    expect(out.choices[0]!.content).toBe("[offline] No language model is configured. You said: «»");
  });

  it("answers the same request the same way every time", async () => {
    const first = await provider.chat(chatRequest({ temperature: 1.2 }), v3);
    const second = await provider.chat(chatRequest({ temperature: 1.2 }), v3);

    expect(second).toStrictEqual(first);
  });

  it("quotes at most 2000 characters of a long message, marking the cut", async () => {
    const long = "a".repeat(2500);

    const out = await provider.chat(chatRequest({ messages: [{ role: "user", content: long }] }), {});

    expect(out.choices[0]!.content).toBe(`[offline] No language model is configured. You said: «${"a".repeat(2000)}…»`);
  });

  it("cuts the answer before a stop sequence", async () => {
    const out = await provider.chat(chatRequest({ stop: "configured" }), v3);

    expect(out.choices[0]).toStrictEqual({ content: "[offline] No language model is ", toolCalls: [], finishReason: "stop" });
  });

  it("cuts at the earliest of several stop sequences", async () => {
    const out = await provider.chat(chatRequest({ stop: ["said", "model"] }), v3);

    expect(out.choices[0]!.content).toBe("[offline] No language ");
  });

  it("ignores stop sequences that do not occur, and empty ones", async () => {
    const out = await provider.chat(chatRequest({ stop: ["zzz", ""] }), v3);

    expect(out.choices[0]!.content).toBe(ECHO);
  });

  it("stops at max_tokens as the model's tokenizer counts them, with finish_reason length", async () => {
    const out = await provider.chat(chatRequest({ max_tokens: 7 }), v3);

    const [choice] = out.choices;
    expect(choice!.finishReason).toBe("length");
    expect(countTokens("v3", choice!.content)).toBeLessThanOrEqual(7);
    expect(ECHO.startsWith(choice!.content)).toBe(true);
  });

  it("keeps as many whole words as fit in max_tokens", async () => {
    const out = await provider.chat(chatRequest({ max_tokens: 7 }), v3);

    const content = out.choices[0]!.content;
    const nextWord = ECHO.slice(content.length).split(/(?<=\s)/)[0]!;
    expect(countTokens("v3", content + nextWord)).toBeGreaterThan(7);
  });

  it("counts words for max_tokens when no tokenizer is given", async () => {
    const out = await provider.chat(chatRequest({ max_tokens: 3 }), {});

    expect(out.choices[0]).toMatchObject({ content: "[offline] No language ", finishReason: "length" });
  });

  it("answers nothing with finish_reason length for max_tokens 0", async () => {
    const out = await provider.chat(chatRequest({ max_tokens: 0 }), v3);

    expect(out.choices[0]).toMatchObject({ content: "", finishReason: "length" });
  });

  it("leaves an answer within max_tokens whole, with finish_reason stop", async () => {
    const out = await provider.chat(chatRequest({ max_tokens: 1000 }), v3);

    expect(out.choices[0]).toMatchObject({ content: ECHO, finishReason: "stop" });
  });

  it("quotes at most 2,000 characters of a long message in a json_object echo, as in its text echo", async () => {
    const said = "word ".repeat(40_000);
    const out = await provider.chat(chatRequest({ messages: [{ role: "user", content: said }], response_format: { type: "json_object" } }), v3);

    const echo = (JSON.parse(out.choices[0]!.content) as { echo: string }).echo;
    expect(echo).toBe(`${said.slice(0, 2000)}…`);
  });

  it("cuts a long answer at max_tokens with few counts (a binary search, not a count per word)", async () => {
    let counts = 0;
    const counting = { countTokens: (text: string) => (counts += 1, countTokens("v3", text)) };
    const messages = [{ role: "user", content: "word ".repeat(400) }];
    const whole = (await provider.chat(chatRequest({ messages }), v3)).choices[0]!.content;
    const out = await provider.chat(chatRequest({ messages, max_tokens: 300 }), counting);

    const content = out.choices[0]!.content;
    const nextWord = whole.slice(content.length).split(/(?<=\s)/)[0]!;
    expect(whole.startsWith(content)).toBe(true);
    expect(countTokens("v3", content)).toBeLessThanOrEqual(300);
    expect(countTokens("v3", content + nextWord)).toBeGreaterThan(300);
    expect(counts).toBeLessThan(20);
  });

  it("answers valid JSON holding the echo for a json_object response format", async () => {
    const out = await provider.chat(chatRequest({ response_format: { type: "json_object" } }), v3);

    expect(JSON.parse(out.choices[0]!.content)).toStrictEqual({ offline: true, echo: "What is the capital of France?" });
  });

  it("answers valid JSON for a json_schema response format", async () => {
    const out = await provider.chat(chatRequest({ response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" } } } }), v3);

    expect(() => JSON.parse(out.choices[0]!.content)).not.toThrow();
  });

  it("answers n identical choices for n", async () => {
    const out = await provider.chat(chatRequest({ n: 3 }), v3);

    expect(out.choices).toHaveLength(3);
    expect(new Set(out.choices.map((c) => c.content))).toStrictEqual(new Set([ECHO]));
  });

  it("leaves the usage to the route (it reports none itself)", async () => {
    const out = await provider.chat(chatRequest(), v3);

    expect(out.usage).toBeUndefined();
  });
});

describe("offline forced tool calls", () => {
  const weather = tool("get_weather", { type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  const search = tool("search", { type: "object", properties: { query: { type: "string" } }, required: ["query"] });

  it("calls the tool a named tool_choice forces, with finish_reason tool_calls and no content", async () => {
    const out = await provider.chat(chatRequest({ tools: [weather, search], tool_choice: { type: "function", function: { name: "search" } } }), v3);

    expect(out.choices[0]).toStrictEqual({
      content: "",
      toolCalls: [{ id: "offline01", type: "function", function: { name: "search", arguments: JSON.stringify({ query: "[offline]" }) } }],
      finishReason: "tool_calls",
    });
  });

  it("calls the first tool for tool_choice any", async () => {
    const out = await provider.chat(chatRequest({ tools: [weather, search], tool_choice: "any" }), v3);

    expect(out.choices[0]!.toolCalls[0]!.function.name).toBe("get_weather");
  });

  it("calls the first tool for tool_choice required", async () => {
    const out = await provider.chat(chatRequest({ tools: [weather, search], tool_choice: "required" }), v3);

    expect(out.choices[0]!.toolCalls[0]!.function.name).toBe("get_weather");
  });

  it("calls the first tool for tool_choice auto, and when tool_choice is left out, once the user has spoken", async () => {
    for (const toolChoice of ["auto", undefined]) {
      const out = await provider.chat(chatRequest({ tools: [weather, search], tool_choice: toolChoice }), v3);

      expect(out.choices[0]).toMatchObject({ content: "", finishReason: "tool_calls", toolCalls: [{ function: { name: "get_weather" } }] });
    }
  });

  it("answers a labelled text quoting the tool's result once a tool has answered (tool_choice auto)", async () => {
    const messages = [
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: "", tool_calls: [{ id: "offline01", type: "function", function: { name: "get_weather", arguments: '{"city":"[offline]"}' } }] },
      { role: "tool", name: "get_weather", tool_call_id: "offline01", content: '{"temperature":21}' },
    ];

    const out = await provider.chat(chatRequest({ messages, tools: [weather] }), v3);

    expect(out.choices[0]).toStrictEqual({
      content: '[offline] No language model is configured. The tool answered: «{"temperature":21}»',
      toolCalls: [],
      finishReason: "stop",
    });
  });

  it("quotes every tool result of the last turn, in order", async () => {
    const messages = [
      { role: "user", content: "Both?" },
      { role: "assistant", content: "", tool_calls: [{ id: "a", function: { name: "x", arguments: "{}" } }, { id: "b", function: { name: "y", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "first" },
      { role: "tool", tool_call_id: "b", content: "second" },
    ];

    const out = await provider.chat(chatRequest({ messages, tools: [weather] }), v3);

    expect(out.choices[0]!.content).toBe("[offline] No language model is configured. The tool answered: «first\nsecond»");
  });

  it("keeps calling under a forced tool_choice even after a tool result", async () => {
    const messages = [
      { role: "user", content: "Go" },
      { role: "assistant", content: "", tool_calls: [{ id: "a", function: { name: "get_weather", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "done" },
    ];

    const out = await provider.chat(chatRequest({ messages, tools: [weather], tool_choice: "any" }), v3);

    expect(out.choices[0]).toMatchObject({ finishReason: "tool_calls", toolCalls: [{ id: "offline03" }] });
  });

  it("gives each turn's call its own 9-character id", async () => {
    const first = await provider.chat(chatRequest({ tools: [weather] }), v3);
    const messages = [
      { role: "user", content: "a" },
      { role: "assistant", content: "x" },
      { role: "user", content: "b" },
    ];
    const later = await provider.chat(chatRequest({ messages, tools: [weather] }), v3);

    const ids = [first.choices[0]!.toolCalls[0]!.id, later.choices[0]!.toolCalls[0]!.id];
    expect(ids).toStrictEqual(["offline01", "offline03"]);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
  });

  it("calls no tool for tool_choice none", async () => {
    const out = await provider.chat(chatRequest({ tools: [weather], tool_choice: "none" }), v3);

    expect(out.choices[0]!.toolCalls).toStrictEqual([]);
  });

  it("fills placeholders from defaults, first enum values and empty values by type", async () => {
    const parameters = {
      type: "object",
      properties: {
        city: { type: "string" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        days: { type: "integer", default: 3 },
        ratio: { type: "number" },
        detailed: { type: "boolean" },
        hours: { type: "array", items: { type: "integer" } },
        place: { type: "object", properties: { lat: { type: "number" }, lon: { type: "number" } }, required: ["lat", "lon"] },
      },
      required: ["city", "unit", "days", "ratio", "detailed", "hours", "place"],
    };

    const args = await argumentsOf([tool("forecast", parameters)], "any");

    expect(args).toStrictEqual({ city: "[offline]", unit: "celsius", days: 3, ratio: 0, detailed: false, hours: [], place: { lat: 0, lon: 0 } });
  });

  it("gives placeholder arguments that the tool's schema accepts", async () => {
    const parameters = {
      type: "object",
      properties: {
        city: { type: "string" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        detailed: { type: "boolean" },
        place: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] },
      },
      required: ["city", "unit", "detailed", "place"],
    };

    const args = await argumentsOf([tool("forecast", parameters)], "any");

    expect(z.fromJSONSchema(parameters as never).safeParse(args).success).toBe(true);
  });

  it.each([
    ["an integer with a minimum", { type: "integer", minimum: 1 }],
    ["an exclusive minimum", { type: "number", exclusiveMinimum: 2 }],
    ["a nullable integer", { type: ["integer", "null"] }],
    ["a const", { const: "circle" }],
    ["a string with a minimum length", { type: "string", minLength: 2 }],
    ["an anyOf", { anyOf: [{ type: "number" }, { type: "boolean" }] }],
    ["an array with a minimum of items", { type: "array", items: { type: "string", minLength: 1 }, minItems: 2 }],
  ])("gives placeholder arguments the schema accepts for %s", async (_, property) => {
    const parameters = { type: "object", properties: { value: property }, required: ["value"] };

    const args = await argumentsOf([tool("shape", parameters)], "any");

    expect(z.fromJSONSchema(parameters as never).safeParse(args).success).toBe(true);
  });

  it("leaves optional properties out of the placeholder arguments", async () => {
    const parameters = { type: "object", properties: { city: { type: "string" }, country: { type: "string" } }, required: ["city"] };

    const args = await argumentsOf([tool("forecast", parameters)], "any");

    expect(args).toStrictEqual({ city: "[offline]" });
  });
});

describe("offline structured outputs", () => {
  const ajv = new Ajv2020({ strict: false });
  addFormatsPlugin.default(ajv);
  const answerFor = async (schema: Record<string, unknown>) => {
    const out = await provider.chat(chatRequest({ response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: true } } }), v3);
    return JSON.parse(out.choices[0]!.content) as unknown;
  };

  it.each([
    ["an object of the usual types", { type: "object", properties: { title: { type: "string" }, year: { type: "integer", minimum: 1900 }, score: { type: "number", maximum: -1 }, tags: { type: "array", items: { type: "string" }, minItems: 1 } }, required: ["title", "year", "score", "tags"], additionalProperties: false }],
    ["string formats and bounded lengths", { type: "object", properties: { at: { type: "string", format: "date-time" }, mail: { type: "string", format: "email" }, id: { type: "string", format: "uuid" }, code: { type: "string", maxLength: 3 }, long: { type: "string", minLength: 12 } }, required: ["at", "mail", "id", "code", "long"] }],
    ["local $refs into $defs", { type: "object", properties: { steps: { type: "array", items: { $ref: "#/$defs/Step" }, minItems: 2 } }, required: ["steps"], $defs: { Step: { type: "object", properties: { explanation: { type: "string" }, output: { type: "string" } }, required: ["explanation", "output"], additionalProperties: false } } }],
    ["nullable fields, anyOf and allOf", { type: "object", properties: { a: { type: ["string", "null"] }, b: { anyOf: [{ type: "null" }, { type: "integer", multipleOf: 5, minimum: 3 }] }, c: { allOf: [{ type: "object", properties: { x: { type: "boolean" } }, required: ["x"] }, { type: "object", properties: { y: { const: 1 } }, required: ["y"] }] } }, required: ["a", "b", "c"] }],
    ["a tuple", { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 2 }],
  ])("answers JSON valid for %s", async (_, schema) => {
    const answer = await answerFor(schema);

    expect(ajv.validate(schema, answer), JSON.stringify(ajv.errors)).toBe(true);
  });

  it("labels the strings it may: free strings say [offline]", async () => {
    expect(await answerFor({ type: "object", properties: { summary: { type: "string" } }, required: ["summary"] })).toStrictEqual({ summary: "[offline]" });
  });

  it("answers the schema's JSON, not a tool call, once a tool has answered", async () => {
    const messages = [
      { role: "user", content: "Go" },
      { role: "assistant", content: "", tool_calls: [{ id: "a", function: { name: "get_weather", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "done" },
    ];
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };

    const out = await provider.chat(chatRequest({ messages, tools: [tool("get_weather", { type: "object" })], response_format: { type: "json_schema", json_schema: { name: "r", schema } } }), v3);

    expect(JSON.parse(out.choices[0]!.content)).toStrictEqual({ ok: false });
  });
});

describe("offline reasoning", () => {
  const think = (model: string, extra: Record<string, unknown> = {}) => provider.chat(chatRequest({ model, ...extra }), v3);

  it("answers a labelled thinking part before the echo for a reasoning model", async () => {
    const out = await think("offline-reasoning");

    expect(out.choices[0]).toStrictEqual({ content: ECHO, thinking: OFFLINE_THINKING, toolCalls: [], finishReason: "stop" });
    expect(OFFLINE_THINKING.startsWith(OFFLINE_LABEL)).toBe(true);
  });

  it("leaves the thinking out for reasoning_effort none", async () => {
    expect((await think("offline-reasoning", { reasoning_effort: "none" })).choices[0]!.thinking).toBeUndefined();
  });

  it("thinks on an adjustable model only when reasoning_effort asks", async () => {
    expect((await think("offline-adjustable-reasoning")).choices[0]!.thinking).toBeUndefined();
    expect((await think("offline-adjustable-reasoning", { reasoning_effort: "none" })).choices[0]!.thinking).toBeUndefined();
    expect((await think("offline-adjustable-reasoning", { reasoning_effort: "high" })).choices[0]!.thinking).toBe(OFFLINE_THINKING);
  });

  it("never thinks on a model without reasoning, whatever the request says", async () => {
    expect((await think("offline-echo", { reasoning_effort: "high" })).choices[0]!.thinking).toBeUndefined();
  });

  it("streams the thinking as its own delta before the text", async () => {
    const events = await collect(provider.chatStream(chatRequest({ model: "offline-reasoning" }), v3));

    expect(events[0]).toStrictEqual({ type: "delta", index: 0, thinking: OFFLINE_THINKING });
    expect(joined(events)).toBe(ECHO);
  });
});

describe("offline streaming", () => {
  it("streams deltas that join to the plain answer", async () => {
    const plain = await provider.chat(chatRequest(), v3);

    const events = await collect(provider.chatStream(chatRequest(), v3));

    expect(events.filter((e) => e.type === "delta").length).toBeGreaterThan(1);
    expect(joined(events)).toBe(plain.choices[0]!.content);
  });

  it("ends each choice with a finish event carrying the plain answer's reason", async () => {
    const events = await collect(provider.chatStream(chatRequest({ max_tokens: 4 }), v3));

    expect(events.at(-1)).toStrictEqual({ type: "finish", index: 0, reason: "length" });
  });

  it("streams every one of n choices under its index", async () => {
    const events = await collect(provider.chatStream(chatRequest({ n: 2 }), v3));

    expect([joined(events, 0), joined(events, 1)]).toStrictEqual([ECHO, ECHO]);
    expect(events.filter((e) => e.type === "finish").map((e) => (e as { index: number }).index)).toStrictEqual([0, 1]);
  });

  it("streams a forced tool call as one delta", async () => {
    const events = await collect(provider.chatStream(chatRequest({ tools: [tool("search", { type: "object", properties: {} })], tool_choice: "any" }), v3));

    expect(events).toStrictEqual([
      { type: "delta", index: 0, toolCalls: [{ id: "offline01", type: "function", function: { name: "search", arguments: "{}" } }] },
      { type: "finish", index: 0, reason: "tool_calls" },
    ]);
  });

  it("streams FIM deltas that join to the plain FIM answer", async () => {
    const plain = await provider.fim(fimRequest(), v3);

    const events = await collect(provider.fimStream(fimRequest(), v3));

    expect(joined(events)).toBe(plain.choices[0]!.content);
  });
});

describe("offline FIM", () => {
  it("answers a labelled echo of the prompt's last line", async () => {
    const out = await provider.fim(fimRequest(), v3);

    expect(out.choices).toStrictEqual([{ content: "[offline] No code model is configured; the prompt ends with: «    return a»", toolCalls: [], finishReason: "stop" }]);
  });

  it("does not echo the suffix", async () => {
    const out = await provider.fim(fimRequest({ suffix: "SECRET_SUFFIX" }), v3);

    expect(out.choices[0]!.content).not.toContain("SECRET_SUFFIX");
  });

  it("stops at max_tokens with finish_reason length", async () => {
    const out = await provider.fim(fimRequest({ max_tokens: 3 }), v3);

    expect(out.choices[0]!.finishReason).toBe("length");
    expect(countTokens("v3", out.choices[0]!.content)).toBeLessThanOrEqual(3);
  });

  it("cuts at a stop sequence", async () => {
    const out = await provider.fim(fimRequest({ stop: [";"] }), v3);

    expect(out.choices[0]!.content).toBe("[offline] No code model is configured");
  });
});

describe("offline embeddings", () => {
  it("embeds into 1024 dimensions unless asked otherwise", async () => {
    const out = await provider.embed({ model: "offline-hash-embed", inputs: ["hello world"] });

    expect(out.vectors[0]).toHaveLength(1024);
  });

  it("embeds into the dimensions asked for", async () => {
    const out = await provider.embed({ model: "offline-hash-embed", inputs: ["hello world"], dimensions: 256 });

    expect(out.vectors[0]).toHaveLength(256);
  });

  it("answers one vector per input, in order", async () => {
    const out = await provider.embed({ model: "offline-hash-embed", inputs: ["alpha", "beta", "alpha"] });

    expect(out.vectors).toHaveLength(3);
    expect(out.vectors[2]).toStrictEqual(out.vectors[0]);
    expect(out.vectors[1]).not.toStrictEqual(out.vectors[0]);
  });
});

describe("offline moderation", () => {
  it("flags the category whose keyword occurs, and only it", async () => {
    const [result] = await provider.moderate({ model: "offline-keyword-moderation", inputs: ["I will kill you tomorrow"] });

    const flagged = Object.entries(result!.categories).filter(([, on]) => on).map(([category]) => category);
    expect(flagged).toStrictEqual(["violence_and_threats"]);
    expect(result!.categoryScores.violence_and_threats).toBe(1);
  });

  it("matches keywords whatever their case", async () => {
    const [result] = await provider.moderate({ model: "offline-keyword-moderation", inputs: ["Can you give me LEGAL ADVICE?"] });

    expect(result!.categories.law).toBe(true);
  });

  it("flags nothing in harmless text, with every category scored 0", async () => {
    const [result] = await provider.moderate({ model: "offline-keyword-moderation", inputs: ["The weather is lovely today."] });

    expect(Object.values(result!.categories).every((on) => on === false)).toBe(true);
    expect(Object.values(result!.categoryScores).every((score) => score === 0)).toBe(true);
  });

  it("reports every category it knows for each input", async () => {
    const results = await provider.moderate({ model: "offline-keyword-moderation", inputs: ["a", "b"] });

    expect(results).toHaveLength(2);
    expect(Object.keys(results[0]!.categories).sort()).toStrictEqual(
      ["dangerous_and_criminal_content", "financial", "hate_and_discrimination", "health", "law", "pii", "selfharm", "sexual", "violence_and_threats"],
    );
  });
});

describe("offline live transcription", () => {
  async function* audioOf(...pieces: LiveAudio[]): AsyncGenerator<LiveAudio> {
    yield* pieces;
  }
  const transcribeLive = async (format: { encoding: "pcm_s16le" | "pcm_mulaw"; sampleRate: number }, audio: AsyncIterable<LiveAudio>) => {
    const events: TranscriptionEvent[] = [];
    for await (const event of provider.transcribeLive({ model: "offline-transcriber", format }, audio, {})) events.push(event);
    return events;
  };

  it("says how much audio it received once the audio ends, and invents no words", async () => {
    const audio = audioOf({ type: "audio", data: Buffer.alloc(32_000) }, { type: "flush" }, { type: "audio", data: Buffer.alloc(16_000) });

    expect(await transcribeLive({ encoding: "pcm_s16le", sampleRate: 16_000 }, audio)).toStrictEqual([
      { type: "text", text: "[offline] No speech-to-text model is configured; 1.5 s of 16 kHz pcm_s16le audio were received and not transcribed." },
    ]);
  });

  it("measures the duration in the session's encoding", async () => {
    const [event] = await transcribeLive({ encoding: "pcm_mulaw", sampleRate: 8_000 }, audioOf({ type: "audio", data: Buffer.alloc(20_000) }));

    expect(event).toMatchObject({ type: "text", text: expect.stringContaining("2.5 s of 8 kHz pcm_mulaw audio") });
  });

  it("answers a session without audio", async () => {
    const [event] = await transcribeLive({ encoding: "pcm_s16le", sampleRate: 24_000 }, audioOf());

    expect(event).toMatchObject({ text: expect.stringContaining("0.0 s of 24 kHz pcm_s16le audio") });
  });
});
