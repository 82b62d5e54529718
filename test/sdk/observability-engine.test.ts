/**
 * The observability engine through the official, unmodified SDK (`client.beta.observability.*`): every
 * search, aggregation, field and options call, answers parsed by the SDK's own schemas, over spans, logs
 * and evaluations written by appendTelemetry and read by DuckDB. Another workspace sees none of it.
 */
import type { Mistral } from "@mistralai/mistralai";
import { ObservabilityError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { appendTelemetry } from "../../shared/blobs/telemetry.js";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { aLogRow, anEvaluationRow, aSpanRow, aTraceOf, messages } from "../support/telemetry-rows.js";
import { newTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
let stranger: Mistral;
const now = Date.now();
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
const from = new Date(now - 3 * 3_600_000);
let trace: ReturnType<typeof aTraceOf>;

beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  stranger = sdkClient(api, (await newTenant()).key);
  const ws = tenant.caller.workspace;
  trace = aTraceOf(ws, { start_time: at(30) }, [
    { operation_name: "chat", request_model: "mistral-large-latest", response_model: "mistral-large-latest", status_code: "Error", error_type: "timeout", duration_ns: 2_000_000_000, input_messages: messages("user", "why?") },
    { operation_name: "chat", request_model: "mistral-small-latest", response_model: "mistral-small-latest", duration_ns: 100_000_000 },
  ]);
  await appendTelemetry("spans", [...trace, aSpanRow(ws, { start_time: at(90), duration_ns: 300_000_000 })]);
  await appendTelemetry("logs", [aLogRow(ws, { timestamp: at(20), trace_id: trace[0]!.trace_id, severity_text: "ERROR", body: "upstream timed out" }), aLogRow(ws, { timestamp: at(19), body: "retrying" })]);
  await appendTelemetry("span_evaluations", [
    anEvaluationRow(ws, { trace_id: trace[1]!.trace_id, span_id: trace[1]!.span_id, timestamp: at(10), score_value: 0.2, score_label: "bad" }),
    anEvaluationRow(ws, { trace_id: trace[1]!.trace_id, span_id: trace[1]!.span_id, timestamp: at(5), score_value: 0.9, score_label: "good" }),
  ]);
});

describe("beta.observability.spans.searchSpans (POST /v1/observability/spans/search)", () => {
  it("finds spans by model and status, parsed by the SDK, and pages with the cursor", async () => {
    const found = await client.beta.observability.spans.searchSpans({ from, spansRequest: { searchExpression: "request_model = 'mistral-large-latest' AND status_code = 'Error'" } });
    expect(found.spans.results!).toHaveLength(1);
    expect(found.spans.results![0]).toMatchObject({ spanId: trace[1]!.span_id, errorType: "timeout", durationNs: 2_000_000_000 });
    expect(found.spans.results![0]!.startTime).toBeInstanceOf(Date);

    const first = await client.beta.observability.spans.searchSpans({ from, pageSize: 2, spansRequest: {} });
    const second = await client.beta.observability.spans.searchSpans({ from, pageSize: 2, cursor: first.spans.cursor, spansRequest: {} });
    expect([...first.spans.results!, ...second.spans.results!].map((s) => s.spanId)).toHaveLength(4);
    expect(second.spans.cursor).toBeNull();
    expect((await stranger.beta.observability.spans.searchSpans({ from, spansRequest: {} })).spans.results).toStrictEqual([]);
  });

  it("rejects a bad expression with ObservabilityError 422 naming the position", async () => {
    const error = await errorOf(client.beta.observability.spans.searchSpans({ spansRequest: { searchExpression: "status_code = " } }), ObservabilityError);
    expect(error.statusCode).toBe(422);
    expect(error.data$.detail).toMatchObject({ errorCode: "SEARCH_BAD_REQUEST", message: expect.stringContaining("position 14") });
  });
});

describe("beta.observability.spans.searchSpanEvaluations (POST /v1/observability/spans/evaluations/search) and searchLatestSpanEvaluations (POST /v1/observability/spans/evaluations/search/latest)", () => {
  it("finds every evaluation, or the latest per span and name", async () => {
    const every = await client.beta.observability.spans.searchSpanEvaluations({ from, spanEvaluationsRequest: { searchExpression: `span_id = '${trace[1]!.span_id}'` } });
    expect(every.spanEvaluations.results!.map((e) => e.scoreValue)).toStrictEqual([0.9, 0.2]);
    const latest = await client.beta.observability.spans.searchLatestSpanEvaluations({ from, spanEvaluationsRequest: {} });
    expect(latest.spanEvaluations.results!.map((e) => e.scoreLabel)).toStrictEqual(["good"]);
    expect((await stranger.beta.observability.spans.searchLatestSpanEvaluations({ from, spanEvaluationsRequest: {} })).spanEvaluations.results).toStrictEqual([]);
  });
});

describe("beta.observability.traces.search (POST /v1/observability/traces/search)", () => {
  it("finds the trace derived from its spans by model and status", async () => {
    const found = await client.beta.observability.traces.search({ from, tracesRequest: { searchExpression: "has(models_used, 'mistral-large-latest') AND status_code = 'Error'" } });
    expect(found.traces.results!).toHaveLength(1);
    expect(found.traces.results![0]).toMatchObject({ traceId: trace[0]!.trace_id, spanCount: 3, llmCallCount: 2, errorCount: 1, evaluationCount: 2, modelsUsed: ["mistral-large-latest", "mistral-small-latest"], firstTurnLastInputMessage: "why?" });
  });
});

describe("beta.observability.logs.search (POST /v1/observability/logs/search)", () => {
  it("finds logs newest first, or oldest first when asked", async () => {
    const logs = await client.beta.observability.logs.search({ from, logsRequest: {} });
    expect(logs.logs.results!.map((l) => l.body)).toStrictEqual(["retrying", "upstream timed out"]);
    const asc = await client.beta.observability.logs.search({ from, logsRequest: { order: "asc", searchExpression: "severity_text in ('ERROR')" } });
    expect(asc.logs.results!.map((l) => l.traceId)).toStrictEqual([trace[0]!.trace_id]);
  });
});

describe("beta.observability.spans.aggregate (POST /v1/observability/spans/aggregate) and traces.aggregate (POST /v1/observability/traces/aggregate)", () => {
  it("gives count and p95 of duration by model per hour", async () => {
    const p95 = await client.beta.observability.spans.aggregate({
      from,
      aggregationRequest: { metric: { measure: "duration_ns", aggregation: "p95" }, dimensions: ["request_model"], timeDimension: { granularity: "hour" }, searchExpression: "operation_name = 'chat'" },
    });
    expect(p95.meta.granularitySeconds).toBe(3600);
    expect(p95.data.every((row) => row.timeBucket instanceof Date && row.metricName === "p95(duration_ns)")).toBe(true);
    expect(p95.data.find((row) => row.dimensions?.request_model === "mistral-large-latest")?.metricValue).toBe(2_000_000_000);
    const count = await client.beta.observability.spans.aggregate({ from, aggregationRequest: { metric: { measure: "span_id", aggregation: "count" } } });
    expect(count.data.map((row) => row.metricValue)).toStrictEqual([4]);
    const traces = await client.beta.observability.traces.aggregate({ from, aggregationRequest: { metric: { measure: "span_count", aggregation: "sum" }, dimensions: ["status_code"] } });
    // The lone span is a trace of its own.
    expect(traces.data.map((row) => [row.dimensions?.status_code, row.metricValue])).toStrictEqual([["Error", 3], ["Unset", 1]]);
  });
});

describe("the field catalogues: spans.listSpanFields (GET /v1/observability/spans/fields), listSpanEvalFields (GET /v1/observability/spans/evaluations/fields), traces.getTraceFields (GET /v1/observability/traces/fields), logs.list (GET /v1/observability/logs/fields)", () => {
  it("answers every catalogue, parsed by the SDK", async () => {
    const spans = await client.beta.observability.spans.listSpanFields();
    expect(spans.fieldDefinitions.find((f) => f.name === "duration_ns")).toMatchObject({ type: "INT", supportedAggregations: expect.arrayContaining(["p95"]) });
    expect((await client.beta.observability.spans.listSpanEvalFields()).fieldDefinitions.map((f) => f.name)).toContain("score_value");
    expect((await client.beta.observability.traces.getTraceFields()).fieldDefinitions.find((f) => f.name === "models_used")).toMatchObject({ type: "ARRAY", supportedOperators: ["has", "hasAny", "hasAll", "exists", "not_exists"] });
    expect((await client.beta.observability.logs.list()).fieldDefinitions.map((f) => f.name)).toContain("severity_text");
  });
});

describe("options: spans.fetchSpanFieldOptions (GET /v1/observability/spans/fields/{field_name}/options), fetchSpanEvalFieldOptions (GET /v1/observability/spans/evaluations/fields/{field_name}/options), traces.fetchOptions (GET /v1/observability/traces/fields/{field_name}/options), logs.fetchOptions (GET /v1/observability/logs/fields/{field_name}/options)", () => {
  it("lists the values seen in the caller's workspace; an unknown field is a 404", async () => {
    expect((await client.beta.observability.spans.fetchSpanFieldOptions({ fieldName: "request_model", from })).options).toStrictEqual(["mistral-large-latest", "mistral-small-latest"]);
    expect((await client.beta.observability.spans.fetchSpanEvalFieldOptions({ fieldName: "score_label", from })).options).toStrictEqual(["bad", "good"]);
    expect((await client.beta.observability.traces.fetchOptions({ fieldName: "status_code", from })).options).toStrictEqual(["Error", "Unset"]);
    expect((await client.beta.observability.logs.fetchOptions({ fieldName: "severity_text", from })).options).toStrictEqual(["ERROR", "INFO"]);
    expect((await stranger.beta.observability.spans.fetchSpanFieldOptions({ fieldName: "request_model", from })).options).toStrictEqual([]);
    const error = await errorOf(client.beta.observability.logs.fetchOptions({ fieldName: "colour" }), ObservabilityError);
    expect(error.statusCode).toBe(404);
  });
});
