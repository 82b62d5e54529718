import { beforeEach, describe, expect, it } from "vitest";
import { handler as chatClassifications } from "../../../functions/inference/chat-classifications.js";
import { handler as chatModerations } from "../../../functions/inference/chat-moderations.js";
import { handler as classifications } from "../../../functions/inference/classifications.js";
import { handler as moderations } from "../../../functions/inference/moderations.js";
import { countTokens } from "../../../shared/inference/tokenizer.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, aModelEntry, aModelItem, invoke, serveModelsTable, usageCallerOf, usageRecordsWritten } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const moderation = aModelEntry({ id: "mistral-moderation-latest", endpoints: ["moderations"], upstream: "offline-keyword-moderation", capabilities: { function_calling: false, vision: false, fine_tuning: false, classification: true } });
const small = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] });
const tiny = aModelEntry({ id: "tiny-moderation", endpoints: ["moderations"], upstream: "offline-keyword-moderation", maxContextLength: 4 });

beforeEach(() => serveModelsTable(dynamo, [aModelItem(moderation), aModelItem(small), aModelItem(tiny)]));

const usageRecords = () => usageRecordsWritten(dynamo);
const post = (path: string) => (body: Record<string, unknown>, who: ReturnType<typeof aCaller> | null = caller) => aJsonEvent(body, { path, resource: path, caller: who });
const flagged = (categories: Record<string, boolean>) => Object.entries(categories).filter(([, on]) => on).map(([c]) => c);

const THREAT = "I will kill you tomorrow";
const HARMLESS = "The weather is lovely today.";

describe("POST /v1/moderations", () => {
  const event = post("/v1/moderations");

  it("answers 200 JSON with one result per input, in order, flagging what the model flags", async () => {
    const response = await invoke(moderations, event({ model: "mistral-moderation-latest", input: [HARMLESS, THREAT] }));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["x-inference-backend"]).toBe("offline");
    expect(response.headers?.["x-inference-deployment"]).toBe("offline");
    expect(response.json.id).toMatch(/^mod-[0-9a-f]{32}$/);
    expect(response.json.model).toBe("mistral-moderation-latest");
    expect(response.json.results.map((r: { categories: Record<string, boolean> }) => flagged(r.categories))).toStrictEqual([[], ["violence_and_threats"]]);
    expect(response.json.results[1].category_scores.violence_and_threats).toBe(1);
  });

  it("takes a single string as one input, and writes one usage record under its route", async () => {
    const request = event({ model: "mistral-moderation-latest", input: THREAT });

    const response = await invoke(moderations, request);

    expect(response.json.results).toHaveLength(1);
    expect(usageRecords()).toHaveLength(1);
    expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({
      ...usageCallerOf(caller, request),
      model: "mistral-moderation-latest",
      route: "POST /v1/moderations",
      promptTokens: countTokens("v3", THREAT),
      completionTokens: 0,
      status: 200,
    });
  });

  it("answers 400 for a model that does not moderate, without a usage record", async () => {
    const response = await invoke(moderations, event({ model: "mistral-small-latest", input: "x" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toStrictEqual(aPlatformError({ message: "Model 'mistral-small-latest' does not support moderation", type: "invalid_request_error", param: "model", code: "model_capability_missing" }));
    expect(usageRecords()).toHaveLength(0);
  });

  it("answers 400 invalid_model for an unknown model and 400 for an input over the model's context", async () => {
    const unknown = await invoke(moderations, event({ model: "no-such-model", input: "x" }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json).toMatchObject({ code: "invalid_model", param: "model" });
    const long = await invoke(moderations, event({ model: "tiny-moderation", input: ["ok", "one two three four five six seven"] }));
    expect(long.statusCode).toBe(400);
    expect(long.json).toMatchObject({ code: "input_too_long", param: "input" });
  });

  it("answers 422 for an empty input or a missing model, and 401 without a caller", async () => {
    expect((await invoke(moderations, event({ model: "mistral-moderation-latest", input: [] }))).statusCode).toBe(422);
    expect((await invoke(moderations, event({ input: "x" }))).json).toMatchObject({ detail: [{ loc: ["body", "model"] }] });
    expect((await invoke(moderations, event({ model: "mistral-moderation-latest", input: "x" }, null))).statusCode).toBe(401);
  });
});

describe("POST /v1/chat/moderations", () => {
  const event = post("/v1/chat/moderations");
  const conversation = [
    { role: "user", content: "Hello" },
    { role: "assistant", content: THREAT },
  ];

  it("moderates one conversation as one input: what any of its messages says", async () => {
    const response = await invoke(chatModerations, event({ model: "mistral-moderation-latest", input: conversation }));

    expect(response.statusCode).toBe(200);
    expect(response.json.results).toHaveLength(1);
    expect(flagged(response.json.results[0].categories)).toStrictEqual(["violence_and_threats"]);
  });

  it("moderates several conversations, one result each, in order", async () => {
    const response = await invoke(chatModerations, event({ model: "mistral-moderation-latest", input: [[{ role: "user", content: HARMLESS }], conversation] }));

    expect(response.json.results.map((r: { categories: Record<string, boolean> }) => flagged(r.categories))).toStrictEqual([[], ["violence_and_threats"]]);
    expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({ route: "POST /v1/chat/moderations", status: 200 });
  });

  it("moderates what a tool call's arguments say", async () => {
    const call = [{ role: "assistant", content: "", tool_calls: [{ id: "a", function: { name: "send", arguments: JSON.stringify({ text: THREAT }) } }] }];

    const response = await invoke(chatModerations, event({ model: "mistral-moderation-latest", input: call }));

    expect(flagged(response.json.results[0].categories)).toStrictEqual(["violence_and_threats"]);
  });

  it("answers 422 for an empty conversation or a message without a role", async () => {
    expect((await invoke(chatModerations, event({ model: "mistral-moderation-latest", input: [] }))).statusCode).toBe(422);
    expect((await invoke(chatModerations, event({ model: "mistral-moderation-latest", input: [{ content: "x" }] }))).statusCode).toBe(422);
  });
});

describe("POST /v1/classifications", () => {
  const event = post("/v1/classifications");

  it("answers each input's scores under the moderation target", async () => {
    const response = await invoke(classifications, event({ model: "mistral-moderation-latest", input: [HARMLESS, THREAT] }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ model: "mistral-moderation-latest" });
    expect(response.json.results).toHaveLength(2);
    expect(Object.keys(response.json.results[0])).toStrictEqual(["moderation"]);
    expect(response.json.results[1].moderation.scores.violence_and_threats).toBe(1);
    expect(Object.values(response.json.results[0].moderation.scores).every((s) => s === 0)).toBe(true);
    expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({ route: "POST /v1/classifications", status: 200 });
  });

  it("answers 400 for a model that does not classify", async () => {
    const response = await invoke(classifications, event({ model: "mistral-small-latest", input: "x" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "model_capability_missing" });
  });
});

describe("POST /v1/chat/classifications", () => {
  const event = post("/v1/chat/classifications");

  it("classifies one {messages} as one input, or several in order", async () => {
    const one = await invoke(chatClassifications, event({ model: "mistral-moderation-latest", input: { messages: [{ role: "user", content: THREAT }] } }));
    const several = await invoke(
      chatClassifications,
      event({ model: "mistral-moderation-latest", input: [{ messages: [{ role: "user", content: HARMLESS }] }, { messages: [{ role: "user", content: THREAT }] }] }),
    );

    expect(one.statusCode).toBe(200);
    expect(one.json.results).toHaveLength(1);
    expect(one.json.results[0].moderation.scores.violence_and_threats).toBe(1);
    expect(several.json.results.map((r: { moderation: { scores: Record<string, number> } }) => r.moderation.scores.violence_and_threats)).toStrictEqual([0, 1]);
  });

  it("answers 422 for an input without messages", async () => {
    expect((await invoke(chatClassifications, event({ model: "mistral-moderation-latest", input: { text: "x" } }))).statusCode).toBe(422);
  });
});

describe("classifier answers: Server-Timing (decision 0045)", () => {
  it.each([
    ["/v1/moderations", moderations, { model: "mistral-moderation-latest", input: [HARMLESS] }],
    ["/v1/classifications", classifications, { model: "mistral-moderation-latest", input: [HARMLESS] }],
  ] as const)("%s tells the platform's time before and after the upstream, and the upstream's", async (path, handler, body) => {
    const response = await invoke(handler, post(path)(body));

    expect(response.statusCode).toBe(200);
    expect(String(response.headers?.["server-timing"])).toMatch(/^platform-before;dur=[\d.]+;desc="[^"]+", upstream;dur=[\d.]+, platform-after;dur=[\d.]+;desc="[^"]+"$/);
  });
});
