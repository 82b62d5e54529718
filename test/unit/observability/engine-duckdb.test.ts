import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionPrefix } from "../../../shared/domain/observability/records.js";
import { appendTelemetry } from "../../../shared/blobs/telemetry.js";
import { traceFromSpans } from "../../../shared/domain/observability/traces.js";
import { aggregateTelemetry, fieldOptions, searchTelemetry } from "../../../shared/services/observability/engine.js";
import { aLogRow, anEvaluationRow, aSpanRow, aTraceOf, messages } from "../../support/telemetry-rows.js";

// The engine's SQL executed for real on DuckDB over files written by appendTelemetry.
let dir: string;
const previous = process.env.TELEMETRY_DIR;
const ws = "ws-engine-a";
const other = "ws-engine-b";
const now = Date.now();
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "telemetry-"));
  process.env.TELEMETRY_DIR = dir;
  await appendTelemetry("spans", [
    aSpanRow(ws, { start_time: at(50), request_model: "mistral-large-latest", response_model: "mistral-large-latest", duration_ns: 900_000_000, status_code: "Error", error_type: "timeout" }),
    aSpanRow(ws, { start_time: at(40), duration_ns: 100_000_000 }),
    aSpanRow(ws, { start_time: at(30), duration_ns: 300_000_000, span_attributes: { "gen_ai.system": "mistral_ai", team: "o'brien" } }),
    aSpanRow(other, { start_time: at(30), request_model: "mistral-large-latest" }),
  ]);
});
afterAll(async () => {
  process.env.TELEMETRY_DIR = previous;
  await rm(dir, { recursive: true, force: true });
});

describe("the engine on DuckDB", () => {
  it("searches the caller's spans by model and status, newest first, and never another workspace's", async () => {
    const page = await searchTelemetry(ws, "spans", { page_size: 50, search_expression: "request_model = 'mistral-large-latest' AND status_code IN ('Error')" });
    expect(page.results).toHaveLength(1);
    expect(page.results[0]).toMatchObject({ workspace_id: ws, request_model: "mistral-large-latest", status_code: "Error", duration_ns: 900_000_000, response_finish_reasons: ["stop"], request_top_p: null });
    const all = await searchTelemetry(ws, "spans", { page_size: 50 });
    expect(all.results.map((r) => r.start_time)).toStrictEqual([at(30), at(40), at(50)]);
    expect(all.results.every((r) => r.workspace_id === ws)).toBe(true);
  });

  it("pages with a stable cursor", async () => {
    const first = await searchTelemetry(ws, "spans", { page_size: 2 });
    expect(first.results).toHaveLength(2);
    expect(first.cursor).toBeTruthy();
    const second = await searchTelemetry(ws, "spans", { page_size: 2, cursor: first.cursor! });
    expect(second.results).toHaveLength(1);
    expect(second.cursor).toBeNull();
    expect(second.results[0]!.start_time).toBe(at(50));
  });

  it("reads map keys, regexps and number ranges", async () => {
    const byKey = await searchTelemetry(ws, "spans", { page_size: 50, search_expression: `span_attributes['team'] = "o'brien"` });
    expect(byKey.results).toHaveLength(1);
    const ranged = await searchTelemetry(ws, "spans", { page_size: 50, search_expression: "duration_ns BETWEEN 200000000 AND 1000000000 AND NOT error_type regexp '^time'" });
    expect(ranged.results.map((r) => r.duration_ns)).toStrictEqual([300_000_000]);
    const has = await searchTelemetry(ws, "spans", { page_size: 50, search_expression: "has(response_finish_reasons, 'stop') AND span_attributes EXISTS" });
    expect(has.results).toHaveLength(3);
  });

  it("ignores a half-written last line of a file another process is appending to", async () => {
    const file = join(dir, partitionPrefix("spans", ws, at(20)), "torn.jsonl");
    await appendTelemetry("spans", [aSpanRow(ws, { start_time: at(20), span_name: "torn-neighbour" })]);
    const whole = JSON.stringify(aSpanRow(ws, { start_time: at(20), span_name: "torn" }));
    await appendFile(file, whole.slice(0, whole.length / 2));
    const page = await searchTelemetry(ws, "spans", { page_size: 50, search_expression: "span_name LIKE 'torn%'" });
    expect(page.results.map((r) => r.span_name)).toStrictEqual(["torn-neighbour"]);
  });

  it("aggregates p95 of duration by model per hour and counts", async () => {
    const result = await aggregateTelemetry(ws, "spans", { from: at(120), to: at(0) }, {
      metric: { measure: "duration_ns", aggregation: "p95" },
      dimensions: ["request_model"],
      time_dimension: { granularity: "hour" },
      limit: 100,
    });
    expect(result.meta.granularity_seconds).toBe(3600);
    const models = new Set(result.data.map((r) => r.dimensions.request_model));
    expect(models).toStrictEqual(new Set(["mistral-large-latest", "mistral-small-latest"]));
    expect(result.data.every((r) => r.metric_name === "p95(duration_ns)" && typeof r.metric_value === "number" && /Z$/.test(r.time_bucket!))).toBe(true);
    const count = await aggregateTelemetry(ws, "spans", {}, { metric: { measure: "span_id", aggregation: "count" }, dimensions: [], limit: 10, search_expression: "status_code = 'Error'" });
    expect(count.data).toStrictEqual([{ time_bucket: null, dimensions: {}, metric_name: "count(span_id)", metric_value: 1 }]);
  });

  it("derives a trace in SQL exactly as traceFromSpans does for the point reads", async () => {
    const spans = aTraceOf(ws, { start_time: at(12), resource_attributes: { "deployment.environment.name": "prod" } }, [
      { operation_name: "chat", response_model: "", request_model: "mistral-small-latest", input_messages: messages("user", "q1"), output_messages: messages("assistant", "a1"), agent_id: "ag-1", agent_name: "helper", usage_cache_read_input_tokens: 3 },
      { operation_name: "embeddings", response_model: "mistral-embed", usage_input_tokens: 7, usage_output_tokens: 0 },
      { operation_name: "execute_tool", tool_name: "lookup", response_model: "", request_model: "", status_code: "Error" },
      { operation_name: "text_completion", response_model: "codestral-latest", input_messages: messages("user", "q2", "q3"), output_messages: messages("assistant", "a2"), workflow_name: "wf" },
    ]);
    await appendTelemetry("spans", spans);
    const [sql] = (await searchTelemetry(ws, "traces", { page_size: 10, search_expression: `trace_id = '${spans[0]!.trace_id}'` })).results;
    expect(sql).toStrictEqual(traceFromSpans(spans, 0));
  });

  it("derives traces from spans with their evaluation count", async () => {
    const spans = aTraceOf(ws, { start_time: at(10), conversation_id: "" }, [
      { operation_name: "chat", response_model: "mistral-small-latest", input_messages: messages("user", "first q"), output_messages: messages("assistant", "first a"), conversation_id: "conv-1" },
      { operation_name: "execute_tool", tool_name: "search", response_model: "", request_model: "" },
      { operation_name: "chat", response_model: "mistral-large-latest", status_code: "Error", input_messages: messages("user", "last q", "more"), output_messages: messages("assistant", "last a") },
    ]);
    await appendTelemetry("spans", spans);
    await appendTelemetry("span_evaluations", [anEvaluationRow(ws, { trace_id: spans[0]!.trace_id, span_id: spans[1]!.span_id })]);
    const page = await searchTelemetry(ws, "traces", { page_size: 10, search_expression: `trace_id = '${spans[0]!.trace_id}'` });
    expect(page.results).toHaveLength(1);
    expect(page.results[0]).toMatchObject({
      trace_id: spans[0]!.trace_id,
      root_span_id: spans[0]!.span_id,
      root_span_name: "workflow",
      environment: "test",
      conversation_id: "conv-1",
      status_code: "Error",
      error_count: 1,
      span_count: 4,
      gen_ai_span_count: 3,
      llm_call_count: 2,
      tool_call_count: 1,
      evaluation_count: 1,
      input_tokens: 40,
      models_used: ["mistral-large-latest", "mistral-small-latest"],
      tools_used: ["search"],
      first_turn_last_input_message: "first q",
      first_turn_last_output_message: "first a",
      last_turn_last_input_message: "last q\nmore",
      last_turn_last_output_message: "last a",
      start_time: spans[0]!.start_time,
    });
    const byModel = await searchTelemetry(ws, "traces", { page_size: 10, search_expression: "hasAny(models_used, ['mistral-large-latest']) AND llm_call_count >= 2" });
    expect(byModel.results.map((r) => r.trace_id)).toContain(spans[0]!.trace_id);
  });

  it("searches logs in either order and the latest evaluation per span and name", async () => {
    await appendTelemetry("logs", [aLogRow(ws, { timestamp: at(5), body: "older" }), aLogRow(ws, { timestamp: at(4), body: "newer", severity_text: "ERROR" })]);
    expect((await searchTelemetry(ws, "logs", { page_size: 10, order: "asc" })).results.map((r) => r.body)).toStrictEqual(["older", "newer"]);
    expect((await searchTelemetry(ws, "logs", { page_size: 10, search_expression: "severity_text = 'ERROR'" })).results.map((r) => r.body)).toStrictEqual(["newer"]);
    const target = { trace_id: "a".repeat(32), span_id: "b".repeat(16) };
    await appendTelemetry("span_evaluations", [anEvaluationRow(ws, { ...target, timestamp: at(3), score_value: 0.1 }), anEvaluationRow(ws, { ...target, timestamp: at(2), score_value: 0.9 })]);
    const latest = await searchTelemetry(ws, "span_evaluations", { page_size: 10, latest: true, search_expression: `span_id = '${"b".repeat(16)}'` });
    expect(latest.results.map((r) => r.score_value)).toStrictEqual([0.9]);
    const every = await searchTelemetry(ws, "span_evaluations", { page_size: 10, search_expression: `span_id = '${"b".repeat(16)}'` });
    expect(every.results).toHaveLength(2);
  });

  it("lists the distinct values of an enum field in the window", async () => {
    expect((await fieldOptions(ws, "spans", "request_model", {})).options).toStrictEqual(["mistral-large-latest", "mistral-small-latest"]);
    await expect(fieldOptions(ws, "spans", "nope", {})).rejects.toMatchObject({ status: 404 });
    await expect(fieldOptions(ws, "spans", "duration_ns", {})).rejects.toMatchObject({ status: 400 });
  });
});

describe("compaction of closed partitions (local)", () => {
  it("rewrites JSON lines of past hours as Parquet that the same searches read, and leaves the current hour's files", async () => {
    const { compactTelemetry } = await import("../../../shared/store/observability/analytics.js");
    const { readdir } = await import("node:fs/promises");
    const before = await searchTelemetry(ws, "spans", { page_size: 100 });
    // Everything written so far is "older than" a cutoff an hour ahead.
    const compacted = await compactTelemetry(dir, new Date(Date.now() + 3_600_000));
    expect(compacted).toBeGreaterThan(0);
    const files = await readdir(join(dir, partitionPrefix("spans", ws, at(30))));
    expect(files.some((f) => f.endsWith(".parquet"))).toBe(true);
    // The writers' hour-named files are gone (the test's hand-made torn.jsonl is not a writer's and stays).
    expect(files.filter((f) => f.endsWith(".jsonl"))).toStrictEqual(["torn.jsonl"]);
    const after = await searchTelemetry(ws, "spans", { page_size: 100 });
    expect(after.results).toStrictEqual(before.results);
    // Nothing of the current hour is taken with the default cutoff.
    await appendTelemetry("spans", [aSpanRow(ws, { start_time: at(1) })]);
    expect(await compactTelemetry(dir)).toBe(0);
  });
});

describe("the default window", () => {
  it("ends now and reaches back the retention period (TELEMETRY_RETENTION_DAYS, default 30); from after to is refused", async () => {
    const { windowOf } = await import("../../../shared/services/observability/engine.js");
    const { vi } = await import("vitest");
    const when = new Date("2026-11-23T12:00:00.000Z");
    expect(windowOf({}, when)).toStrictEqual({ from: "2026-10-24T12:00:00.000Z", to: "2026-11-23T12:00:00.000Z" });
    vi.stubEnv("TELEMETRY_RETENTION_DAYS", "7");
    expect(windowOf({ to: "2026-11-10T00:00:00Z" }, when).from).toBe("2026-11-03T00:00:00.000Z");
    vi.unstubAllEnvs();
    expect(() => windowOf({ from: "2026-11-10T00:00:00Z", to: "2026-11-09T00:00:00Z" })).toThrow("`from` must be before `to`");
  });
});
