/**
 * The official SDK's own telemetry (`configureTelemetry(client)`, dedicated mode: its OTLP/HTTP exporter) against
 * a real `npm start`: its spans land through POST /telemetry/v1/traces in the key's workspace, and the point
 * reads find them by trace id, through the SDK (`beta.observability.traces.*`) and in the analytical files.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import { Mistral } from "@mistralai/mistralai";
import { configureTelemetry, shutdownTelemetry } from "@mistralai/mistralai/extra/observability";
import * as errors from "@mistralai/mistralai/models/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT_DIR } from "../../infra/local/stack.js";
import { killAllStarted, startNpmStart, useNpmStartDirs, type StartedProcess } from "../support/local-process.js";
import { errorOf } from "../support/sdk.js";
import { eventually, telemetryRows } from "../support/telemetry-files.js";

const run = promisify(execFile);
const dirs = useNpmStartDirs("platform-telemetry-");
let server: StartedProcess;
let dataDir: string;
let workspace: string;

beforeAll(async () => {
  dataDir = dirs.dataDir();
  server = await startNpmStart({ dataDir, key: `telemetry-${randomBytes(16).toString("hex")}` });
  workspace = /Workspace:\s+(\S+)/.exec(server.output())![1]!;
});
afterAll(() => killAllStarted());

describe("POST /telemetry/v1/traces (SDK configureTelemetry on npm start)", () => {
  it("exports the SDK's chat spans to the ingest route; the point reads find them by trace id", async () => {
    const client = new Mistral({ apiKey: server.key, serverURL: server.url });
    expect(await configureTelemetry(client)).toBe(true);

    const first = await client.chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "What is the best French cheese?" }] });
    await client.chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "And the best wine?" }] });
    await shutdownTelemetry(client);
    expect(first.choices[0]?.message?.content).toBeTruthy();

    const files = join(dataDir, "telemetry");
    const sdkSpans = await eventually("the SDK's spans", async () => {
      // The platform's own spans of the two calls are there too (scope platform.span-writer): the SDK's are the others.
      const exported = (await telemetryRows("spans", workspace, files)).filter((row) => row.scope_name !== "platform.span-writer");
      return exported.length >= 2 ? exported : undefined;
    }, 15_000);
    expect(sdkSpans.every((row) => row.workspace_id === workspace)).toBe(true);
    const chat = sdkSpans.find((row) => row.operation_name === "chat")!;
    expect(chat).toMatchObject({ request_model: "mistral-small-latest", scope_name: "mistralai_sdk_tracer", service_name: "mistralai_sdk" });
    expect(chat.usage_input_tokens).toBeGreaterThan(0);

    const reader = new Mistral({ apiKey: server.key, serverURL: server.url });
    const trace = await reader.beta.observability.traces.getTraceById({ traceId: chat.trace_id });
    const spans = await reader.beta.observability.traces.getTraceSpans({ traceId: chat.trace_id, pageSize: 100 });
    const span = await reader.beta.observability.traces.getSpanById({ traceId: chat.trace_id, spanId: chat.span_id });

    expect(trace).toMatchObject({ traceId: chat.trace_id, workspaceId: workspace });
    expect(trace.llmCallCount).toBeGreaterThanOrEqual(1);
    expect(spans.spans.results!.map((s) => s.spanId)).toContain(chat.span_id);
    expect(span).toMatchObject({ spanId: chat.span_id, traceId: chat.trace_id, operationName: "chat", requestModel: "mistral-small-latest" });
    const missing = await errorOf(reader.beta.observability.traces.getTraceById({ traceId: "0".repeat(31) + "1" }), errors.ObservabilityError);
    expect(missing.data$.detail.errorCode).toBe("TRACE_NOT_FOUND");
  }, 60_000);
});

/** The API by plain HTTP, for the call the SDK lacks (records from spans). */
async function call(key: string, method: string, path: string, json?: unknown): Promise<any> {
  const reply = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const body = reply.status === 204 ? null : await reply.json();
  expect(reply.status, `${method} ${path}: ${JSON.stringify(body)}`).toBeLessThan(300);
  return body;
}

/** The admin key of another organization and workspace on the same stack, made by the keys CLI (`bootstrap`). */
async function strangerKey(): Promise<string> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/keys.ts", "bootstrap", "--org-name", "Stranger", "--workspace-name", "elsewhere"], {
    cwd: ROOT_DIR,
    // Only what finds the running stack: the test process's own table and endpoint settings would point elsewhere.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PLATFORM_DATA_DIR: dataDir },
  });
  return /API key:\s+(\S+)/.exec(stdout)![1]!;
}

describe("observability end to end on npm start: POST /v1/observability/spans/search, POST /v1/observability/traces/search, POST /v1/observability/spans/aggregate, POST /v1/observability/dataset-records/{dataset_record_id}/live-judging, POST /v1/observability/spans/evaluations/search", () => {
  it("finds the SDK's and the platform's spans by model and status, aggregates them per model and hour, judges a record made from a span, and shows another workspace none of it", async () => {
    const client = new Mistral({ apiKey: server.key, serverURL: server.url });
    expect(await configureTelemetry(client)).toBe(true);
    await client.chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "Name a river in France." }] });
    await client.chat.complete({ model: "mistral-large-latest", messages: [{ role: "user", content: "Name a mountain in France." }] });
    // A call the platform refuses: the SDK's own span of it ends in error.
    await expect(client.chat.complete({ model: "no-such-model", messages: [{ role: "user", content: "?" }] })).rejects.toThrow();
    await shutdownTelemetry(client);

    const beta = client.beta.observability;
    const spans = await eventually("the spans of both models, searchable", async () => {
      const found = await beta.spans.searchSpans({ pageSize: 100, spansRequest: { searchExpression: "operation_name = 'chat' AND request_model IN ('mistral-small-latest', 'mistral-large-latest')" } });
      const models = new Set(found.spans.results!.map((s) => s.requestModel));
      return models.size === 2 ? found.spans.results! : undefined;
    }, 15_000);
    // The platform's spans (its span writer) and the SDK's (exported to the ingest route) both answer.
    expect(new Set(spans.map((s) => s.scopeName))).toEqual(new Set(["platform.span-writer", "mistralai_sdk_tracer"]));
    expect(spans.every((s) => s.workspaceId === workspace)).toBe(true);

    // The refused call: an error span from the platform (its span writer) and from the SDK.
    const failed = await eventually("the failed call's spans", async () => {
      const found = await beta.spans.searchSpans({ spansRequest: { searchExpression: "request_model = 'no-such-model' AND status_code = 'Error'" } });
      return found.spans.results!.length === 2 ? found.spans.results! : undefined;
    }, 15_000);
    expect(new Set(failed.map((s) => s.scopeName))).toEqual(new Set(["platform.span-writer", "mistralai_sdk_tracer"]));
    expect(failed.every((s) => s.statusCode === "Error")).toBe(true);

    const traces = await beta.traces.search({ pageSize: 100, tracesRequest: { searchExpression: "has(models_used, 'mistral-large-latest') AND status_code = 'Unset'" } });
    expect(traces.traces.results!.length).toBeGreaterThan(0);
    expect(traces.traces.results!.every((t) => t.modelsUsed.includes("mistral-large-latest") && t.statusCode === "Unset")).toBe(true);
    const failedTraces = await beta.traces.search({ tracesRequest: { searchExpression: "status_code = 'Error'" } });
    expect(failedTraces.traces.results!.map((t) => t.traceId)).toContain(failed[0]!.traceId);

    const byModel = (metric: "count" | "p95") =>
      beta.spans.aggregate({
        aggregationRequest: { metric: { measure: "duration_ns", aggregation: metric }, dimensions: ["request_model"], timeDimension: { granularity: "hour" }, searchExpression: "operation_name = 'chat'" },
      });
    const [counts, p95] = await Promise.all([byModel("count"), byModel("p95")]);
    expect(counts.meta.granularitySeconds).toBe(3600);
    const countOf = (model: string) => counts.data.filter((row) => row.dimensions?.request_model === model).reduce((sum, row) => sum + Number(row.metricValue), 0);
    // The aggregate counts what the search finds: each successful call made one platform span and one SDK span.
    expect(countOf("mistral-large-latest")).toBe(2);
    expect(countOf("mistral-small-latest")).toBe(spans.filter((s) => s.requestModel === "mistral-small-latest").length);
    expect(p95.data.filter((row) => row.dimensions?.request_model === "mistral-large-latest").every((row) => Number(row.metricValue) > 0 && row.timeBucket instanceof Date)).toBe(true);

    // A record made from the platform's span of the large model's call, judged, and its evaluation searched.
    const source = spans.find((s) => s.requestModel === "mistral-large-latest" && s.scopeName === "platform.span-writer")!;
    const dataset = await beta.datasets.create({ name: "from telemetry", description: "records made from spans" });
    const made = await call(server.key, "POST", `/v1/observability/datasets/${dataset.id}/records/from-spans`, { spans: [{ trace_id: source.traceId, span_id: source.spanId }] });
    const record = made.records[0];
    expect(record).toMatchObject({ source: "TELEMETRY_SPAN", payload: { messages: expect.arrayContaining([expect.objectContaining({ role: "user", content: "Name a mountain in France." })]) } });
    const judged = await beta.datasets.records.judge({
      datasetRecordId: record.id,
      judgeDatasetRecordRequest: {
        judgeDefinition: { name: "e2e judge", description: "is it French", modelName: "mistral-small-latest", instructions: "Is the answer about France?", tools: [], output: { type: "CLASSIFICATION", options: [{ value: "yes", description: "about France" }, { value: "no", description: "elsewhere" }] } },
      },
    });
    expect(["yes", "no"]).toContain(judged.answer);
    const evaluations = await eventually("the judgement as a span evaluation", async () => {
      const found = await beta.spans.searchSpanEvaluations({ spanEvaluationsRequest: { searchExpression: "evaluation_name = 'e2e judge'" } });
      return found.spanEvaluations.results!.length ? found.spanEvaluations.results! : undefined;
    }, 15_000);
    expect(evaluations[0]).toMatchObject({ spanId: source.spanId, traceId: source.traceId, scoreLabel: judged.answer, workspaceId: workspace });
    expect((await beta.traces.getTraceById({ traceId: source.traceId })).evaluationCount).toBe(1);

    const stranger = new Mistral({ apiKey: await strangerKey(), serverURL: server.url }).beta.observability;
    expect((await stranger.spans.searchSpans({ spansRequest: {} })).spans.results).toStrictEqual([]);
    expect((await stranger.traces.search({ tracesRequest: {} })).traces.results).toStrictEqual([]);
    expect((await stranger.spans.searchSpanEvaluations({ spanEvaluationsRequest: {} })).spanEvaluations.results).toStrictEqual([]);
    expect((await stranger.spans.aggregate({ aggregationRequest: { metric: { measure: "span_id", aggregation: "count" } } })).data.every((row) => !row.metricValue)).toBe(true);
    await expect(stranger.traces.getTraceById({ traceId: source.traceId })).rejects.toBeInstanceOf(errors.ObservabilityError);
  }, 120_000);
});
