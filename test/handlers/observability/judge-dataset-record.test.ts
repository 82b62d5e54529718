import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/observability/judge-dataset-record.js";
import { providerNamed } from "../../../shared/inference/registry.js";
import { UpstreamError } from "../../../shared/inference/types.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, aModelEntry, aModelItem, invoke } from "../../support/builders.js";
import { aDataset, aRecord, aRecordItem } from "../../support/dataset-items.js";
import { serveTables } from "../../support/fake-table.js";
import { useTelemetryDir } from "../../support/telemetry-dir.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();
const small = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"], tokenizer: "v3" });
const embed = aModelEntry({ id: "mistral-embed", endpoints: ["embeddings"], tokenizer: "v1", upstream: "offline-hash-embed", dimensions: [1024] });
const dataset = aDataset(caller);
const record = aRecord(dataset);
const fromSpan = aRecord(dataset, { source: "TELEMETRY_SPAN", span: { traceId: "ab".repeat(16), spanId: "cd".repeat(8), conversationId: "conv-9", responseId: "cmpl-9" } });
const theirs = aRecord(aDataset(aCaller()));

const telemetry = useTelemetryDir();
beforeEach(() => {
  serveTables(dynamo, { models: [aModelItem(small), aModelItem(embed)], datasets: [aRecordItem(record), aRecordItem(fromSpan), aRecordItem(theirs)] });
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(join(telemetry.dir, "span_evaluations"), { recursive: true, force: true });
});

const evaluations = (workspace = caller.workspace) => telemetry.evaluations(workspace);

const classification = (overrides: Record<string, unknown> = {}) => ({
  name: "correctness",
  description: "Is the answer right?",
  model_name: "mistral-small-latest",
  output: { type: "CLASSIFICATION", options: [{ value: "correct", description: "Right" }, { value: "wrong", description: "Not right" }] },
  instructions: "Check the assistant's answer.",
  tools: [],
  ...overrides,
});
const regression = (overrides: Record<string, unknown> = {}) =>
  classification({ name: "helpfulness", output: { type: "REGRESSION", min: 2, min_description: "useless", max: 7, max_description: "perfect" }, ...overrides });
const judge = (id: string, definition: unknown) =>
  aJsonEvent({ judge_definition: definition }, { path: `/v1/observability/dataset-records/${id}/live-judging`, pathParameters: { dataset_record_id: id }, caller });
const answering = async (...contents: string[]) => {
  const offline = await providerNamed("offline");
  const spy = vi.spyOn(offline, "chat");
  for (const content of contents) spy.mockResolvedValueOnce({ choices: [{ content, toolCalls: [], finishReason: "stop" }] });
  return spy;
};

describe("POST /v1/observability/dataset-records/{dataset_record_id}/live-judging", () => {
  it("answers a classification on the offline provider with its first option, saying it is offline, and stores the evaluation", async () => {
    const spy = vi.spyOn(await providerNamed("offline"), "chat");

    const response = await invoke(handler, judge(record.id, classification()));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ analysis: expect.stringContaining("[offline]"), answer: "correct" });
    const request = spy.mock.calls[0]![0];
    expect(request.response_format).toMatchObject({ type: "json_schema", json_schema: { schema: { properties: { answer: { type: "string", enum: ["correct", "wrong"] } } } } });
    expect(request.messages.at(-1)!.content).toContain("user: What is the capital of France?");
    expect(evaluations()).toEqual([
      expect.objectContaining({
        workspace_id: caller.workspace,
        organization_id: caller.organization,
        trace_id: "",
        span_id: "",
        evaluation_name: "correctness",
        score_value: 0,
        score_label: "correct",
        explanation: response.json.analysis,
        metadata: { source: "live_judging", dataset_id: dataset.id, dataset_record_id: record.id, judge_model: "mistral-small-latest", judge_output_type: "CLASSIFICATION" },
      }),
    ]);
  });

  it("answers a regression on the offline provider with a number in its range", async () => {
    const response = await invoke(handler, judge(record.id, regression()));

    expect(response.statusCode).toBe(200);
    expect(response.json.answer).toBe(2);
    expect(evaluations()).toEqual([expect.objectContaining({ evaluation_name: "helpfulness", score_value: 2, score_label: "", metadata: expect.objectContaining({ judge_output_type: "REGRESSION" }) })]);
  });

  it("files the evaluation of a record made from a span under that span", async () => {
    await answering('{"analysis":"The answer is wrong.","answer":"wrong"}');

    const response = await invoke(handler, judge(fromSpan.id, classification()));

    expect(response.json).toEqual({ analysis: "The answer is wrong.", answer: "wrong" });
    expect(evaluations()).toEqual([expect.objectContaining({ trace_id: fromSpan.span!.traceId, span_id: fromSpan.span!.spanId, conversation_id: "conv-9", response_id: "cmpl-9", score_value: 1, score_label: "wrong" })]);
  });

  it("asks once more when the answer is none of the options, and takes a case-insensitive match as the option's value", async () => {
    const spy = await answering('{"analysis":"hmm","answer":"maybe"}', '{"analysis":"sure","answer":" CORRECT "}');

    const response = await invoke(handler, judge(record.id, classification()));

    expect(response.json).toEqual({ analysis: "sure", answer: "correct" });
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it("answers 502 JUDGE_MISTRAL_API_ERROR after two answers out of range, storing nothing", async () => {
    const spy = await answering('{"analysis":"big","answer":8}', "not json");

    const response = await invoke(handler, judge(record.id, regression()));

    expect(response.statusCode).toBe(502);
    expect(response.json).toEqual({ detail: { message: "An error occurred", error_code: "JUDGE_MISTRAL_API_ERROR" } });
    expect(spy).toHaveBeenCalledTimes(2);
    expect(evaluations()).toEqual([]);
  });

  it("answers 504 JUDGE_MISTRAL_API_TIMEOUT when the model outlasts the judge's deadline, the call aborted", async () => {
    process.env.JUDGE_DEADLINE_MS = "50";
    let aborted = false;
    vi.spyOn(await providerNamed("offline"), "chat").mockImplementation(
      (_request, options) =>
        new Promise((_resolve, reject) => {
          options.signal!.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    );
    try {
      const response = await invoke(handler, judge(record.id, classification()));

      expect(response.statusCode).toBe(504);
      expect(response.json.detail.error_code).toBe("JUDGE_MISTRAL_API_TIMEOUT");
      expect(aborted).toBe(true);
      expect(evaluations()).toEqual([]);
    } finally {
      delete process.env.JUDGE_DEADLINE_MS;
    }
  });

  it("answers an upstream failure as JUDGE_MISTRAL_API_ERROR with its status", async () => {
    const chat = vi.spyOn(await providerNamed("offline"), "chat").mockRejectedValue(new UpstreamError(429, "Upstream is throttling"));

    const response = await invoke(handler, judge(record.id, classification()));

    expect(response.statusCode).toBe(429);
    // The judge's model call goes through the router: tried once more before the failure is the judge's.
    expect(chat).toHaveBeenCalledTimes(2);
    expect(response.json.detail).toEqual({ message: "Upstream is throttling (after 2 attempts)", error_code: "JUDGE_MISTRAL_API_ERROR" });
  });

  it.each([
    ["an unknown model", classification({ model_name: "no-such-model" }), "VALIDATION_ERROR"],
    ["a model that does not chat", classification({ model_name: "mistral-embed" }), "VALIDATION_ERROR"],
    ["a name under 5 characters", classification({ name: "abc" }), "VALIDATION_ERROR"],
    ["repeated option values", classification({ output: { type: "CLASSIFICATION", options: [{ value: "a", description: "" }, { value: "a", description: "" }] } }), "VALIDATION_ERROR"],
    ["no options", classification({ output: { type: "CLASSIFICATION", options: [] } }), "VALIDATION_ERROR"],
    ["min not below max", regression({ output: { type: "REGRESSION", min: 5, min_description: "", max: 5, max_description: "" } }), "VALIDATION_ERROR"],
    ["tools", classification({ tools: ["web_search"] }), "FEATURE_NOT_SUPPORTED"],
  ])("refuses %s with 422 %s, calling no model", async (_what, definition, code) => {
    const spy = vi.spyOn(await providerNamed("offline"), "chat");

    const response = await invoke(handler, judge(record.id, definition));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe(code);
    expect(spy).not.toHaveBeenCalled();
    expect(evaluations()).toEqual([]);
  });

  it("answers 404 DATASET_RECORD_NOT_FOUND for another workspace's record, calling no model", async () => {
    const spy = vi.spyOn(await providerNamed("offline"), "chat");

    const response = await invoke(handler, judge(theirs.id, classification()));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_RECORD_NOT_FOUND");
    expect(spy).not.toHaveBeenCalled();
  });
});
