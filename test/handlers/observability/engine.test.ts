import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type Row as AthenaRow,
} from "@aws-sdk/client-athena";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { handler as aggregateEvaluations } from "../../../functions/observability/aggregate-span-evaluations.js";
import { handler as aggregateSpans } from "../../../functions/observability/aggregate-spans.js";
import { handler as aggregateTraces } from "../../../functions/observability/aggregate-traces.js";
import { handler as logFieldOptions } from "../../../functions/observability/log-field-options.js";
import { handler as logFields } from "../../../functions/observability/log-fields.js";
import { handler as searchLatest } from "../../../functions/observability/search-latest-span-evaluations.js";
import { handler as searchLogs } from "../../../functions/observability/search-logs.js";
import { handler as searchEvaluations } from "../../../functions/observability/search-span-evaluations.js";
import { handler as searchSpans } from "../../../functions/observability/search-spans.js";
import { handler as searchTraces } from "../../../functions/observability/search-traces.js";
import { handler as evaluationFieldOptions } from "../../../functions/observability/span-evaluation-field-options.js";
import { handler as evaluationFields } from "../../../functions/observability/span-evaluation-fields.js";
import { handler as spanFieldOptions } from "../../../functions/observability/span-field-options.js";
import { handler as spanFields } from "../../../functions/observability/span-fields.js";
import { handler as traceFieldOptions } from "../../../functions/observability/trace-field-options.js";
import { handler as traceFields } from "../../../functions/observability/trace-fields.js";
import { fieldCatalogues } from "../../../shared/domain/observability/fields.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { aSpanRow } from "../../support/telemetry-rows.js";

// The cloud path: Athena (mocked) instead of DuckDB, as a deployed function runs.
const athena = mockClient(AthenaClient);
mockDynamo({ resolves: {} });
const caller = aCaller({ roles: ["observability_viewer"] });
const base = "/v1/observability";

beforeEach(() => {
  athena.reset();
  vi.stubEnv("TELEMETRY_DIR", "");
  vi.stubEnv("TELEMETRY_DATABASE", "telemetry_db");
  vi.stubEnv("TELEMETRY_WORKGROUP", "telemetry-wg");
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

const cell = (value: string | null) => (value === null ? {} : { VarCharValue: value });
/** Athena's result rows for rows of values: the header first, every value as text. */
function resultSet(columns: string[], rows: (string | null)[][]): AthenaRow[] {
  return [{ Data: columns.map((c) => cell(c)) }, ...rows.map((r) => ({ Data: r.map(cell) }))];
}
function answers(columns: string[], rows: (string | null)[][], states: string[] = ["RUNNING", "SUCCEEDED"]) {
  athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-1" });
  const polled = athena.on(GetQueryExecutionCommand);
  states.forEach((state) => polled.resolvesOnce({ QueryExecution: { Status: { State: state as never, StateChangeReason: state === "FAILED" ? "SYNTAX_ERROR: line 1 SELECT secret" : undefined } } }));
  athena.on(GetQueryResultsCommand).resolves({ ResultSet: { ResultSetMetadata: { ColumnInfo: columns.map((Name) => ({ Name, Type: "varchar" })) }, Rows: resultSet(columns, rows) } });
}

/** A span as Athena hands it back: every column text, arrays and maps as JSON. */
function spanCells(span = aSpanRow(caller.workspace)): string[] {
  return [
    ...fieldCatalogues.spans.map((f) => {
      const value = span[f.name as keyof typeof span];
      return value === null ? (null as unknown as string) : typeof value === "object" ? JSON.stringify(value) : String(value);
    }),
    `${span.trace_id}${span.span_id}`,
  ];
}
const spanColumns = [...fieldCatalogues.spans.map((f) => f.name), "page_id"];

describe("POST /v1/observability/spans/search", () => {
  it("runs one parameterised Athena query in the workgroup, the caller's workspace bound first, and answers the spans typed", async () => {
    const span = aSpanRow(caller.workspace, { duration_ns: 1234, request_top_p: null, response_finish_reasons: ["stop"] });
    answers(spanColumns, [spanCells(span)]);

    const response = await invoke(searchSpans, aJsonEvent({ search_expression: "status_code = 'Ok' AND duration_ns > 5" }, { path: `${base}/spans/search`, query: { from: "2026-11-01T00:00:00Z", to: "2026-11-02T00:00:00Z", page_size: "10" }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json.spans).toStrictEqual({ results: [span], next: null, cursor: null });
    const start = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input;
    expect(start).toMatchObject({ WorkGroup: "telemetry-wg", QueryExecutionContext: { Database: "telemetry_db" } });
    expect(start.QueryString).toContain(`FROM "telemetry_db"."spans" WHERE "workspace_id" = ? AND "dt" BETWEEN ? AND ?`);
    expect(start.QueryString).not.toContain("'Ok'");
    expect(start.ExecutionParameters).toStrictEqual([`'${caller.workspace}'`, "'2026-11-01'", "'2026-11-02'", "'2026-11-01T00:00:00.000Z'", "'2026-11-02T00:00:00.000Z'", "'Ok'", "5"]);
    expect(start.QueryString).toContain("LIMIT 11");
    expect(athena.commandCalls(GetQueryExecutionCommand)).toHaveLength(2);
  });

  it("reads every page of the results and returns a cursor when there are more rows than the page", async () => {
    const spans = [aSpanRow(caller.workspace), aSpanRow(caller.workspace), aSpanRow(caller.workspace)];
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-2" });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: "SUCCEEDED" } } });
    const all = resultSet(spanColumns, spans.map((s) => spanCells(s)));
    athena
      .on(GetQueryResultsCommand, { QueryExecutionId: "q-2", NextToken: undefined })
      .resolves({ ResultSet: { ResultSetMetadata: { ColumnInfo: spanColumns.map((Name) => ({ Name, Type: "varchar" })) }, Rows: all.slice(0, 2) }, NextToken: "t2" })
      .on(GetQueryResultsCommand, { QueryExecutionId: "q-2", NextToken: "t2" })
      .resolves({ ResultSet: { Rows: all.slice(2) } });

    const response = await invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, query: { page_size: "2" }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json.spans.results.map((s: { span_id: string }) => s.span_id)).toStrictEqual([spans[0]!.span_id, spans[1]!.span_id]);
    expect(response.json.spans.cursor).toEqual(expect.any(String));
    // The next page asks for rows after the last one shown.
    athena.on(GetQueryResultsCommand).resolves({ ResultSet: { ResultSetMetadata: { ColumnInfo: spanColumns.map((Name) => ({ Name, Type: "varchar" })) }, Rows: resultSet(spanColumns, []) } });
    await invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, query: { page_size: "2", cursor: response.json.spans.cursor }, caller }));
    const params = athena.commandCalls(StartQueryExecutionCommand)[1]!.args[0].input.ExecutionParameters!;
    expect(params).toContain(`'${spans[1]!.trace_id}${spans[1]!.span_id}'`);
  });

  it("answers a failed query 5xx and a slow one 408, stopping it, without showing the SQL", async () => {
    answers(spanColumns, [], ["FAILED"]);
    const failed = await invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, caller }));
    expect(failed.statusCode).toBe(503);
    expect(failed.json).toStrictEqual({ detail: { message: "An error occurred", error_code: "DATABASE_QUERY_ERROR" } });

    athena.reset();
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-3" });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: "RUNNING" } } });
    athena.on(StopQueryExecutionCommand).resolves({});
    vi.useFakeTimers({ toFake: ["Date", "setTimeout"] });
    const pending = invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, caller }));
    await vi.advanceTimersByTimeAsync(30_000);
    const slow = await pending;
    expect(slow.statusCode).toBe(408);
    expect(slow.json.detail.error_code).toBe("DATABASE_TIMEOUT");
    expect(JSON.stringify(slow.json)).not.toContain("SELECT");
    expect(athena.commandCalls(StopQueryExecutionCommand)[0]!.args[0].input).toStrictEqual({ QueryExecutionId: "q-3" });
  });

  it("answers a query over the scan cutoff 400 telling to narrow the window", async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q-4" });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: "FAILED", StateChangeReason: "Query exhausted resources: Bytes scanned limit was exceeded" } } });
    const answer = await invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, caller }));
    expect(answer.statusCode).toBe(400);
    expect(answer.json.detail).toMatchObject({ error_code: "SEARCH_BAD_REQUEST", message: expect.stringContaining("narrow the window") });
  });

  it("refuses a bad expression with 422 naming the position and the problem, before any query", async () => {
    const answer = await invoke(searchSpans, aJsonEvent({ search_expression: "status_code = 'Ok' AND colour = 'red'" }, { path: `${base}/spans/search`, caller }));
    expect(answer.statusCode).toBe(422);
    expect(answer.json).toStrictEqual({ detail: { message: "search_expression at position 23: unknown field 'colour'", error_code: "SEARCH_BAD_REQUEST" } });
    expect(athena.commandCalls(StartQueryExecutionCommand)).toHaveLength(0);
  });

  it("refuses a page size over 100, a garbage cursor and from after to with 422; a key without observability:read with 403", async () => {
    expect((await invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, query: { page_size: "101" }, caller }))).statusCode).toBe(422);
    expect((await invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, query: { cursor: "garbage" }, caller }))).statusCode).toBe(422);
    expect((await invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, query: { from: "2026-11-02T00:00:00Z", to: "2026-11-01T00:00:00Z" }, caller }))).statusCode).toBe(422);
    const refused = await invoke(searchSpans, aJsonEvent({}, { path: `${base}/spans/search`, caller: aCaller({ roles: ["billing"] }) }));
    expect(refused.statusCode).toBe(403);
    expect(refused.json.detail.error_code).toBe("AUTH_FORBIDDEN");
  });
});

const evaluationColumns = [...fieldCatalogues.span_evaluations.map((f) => f.name), "page_id"];
const anEvaluationCells = () => [...fieldCatalogues.span_evaluations.map((f) => (f.name === "score_value" ? "0.5" : f.name === "metadata" ? "{}" : f.name === "workspace_id" ? caller.workspace : "x")), "id"];

describe("POST /v1/observability/spans/evaluations/search", () => {
  it("searches span evaluations", async () => {
    answers(evaluationColumns, [anEvaluationCells()]);
    const response = await invoke(searchEvaluations, aJsonEvent({ search_expression: "score_value < 0.6" }, { path: `${base}/spans/evaluations/search`, caller }));
    expect(response.statusCode).toBe(200);
    expect(response.json.span_evaluations.results[0]).toMatchObject({ score_value: 0.5, metadata: {} });
    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString).toContain(`"telemetry_db"."span_evaluations"`);
  });
});

describe("POST /v1/observability/spans/evaluations/search/latest", () => {
  it("keeps the latest evaluation per span and name before the expression", async () => {
    answers(evaluationColumns, []);
    const response = await invoke(searchLatest, aJsonEvent({}, { path: `${base}/spans/evaluations/search/latest`, caller }));
    expect(response.json).toStrictEqual({ span_evaluations: { results: [], next: null, cursor: null } });
    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString).toContain(`row_number() OVER (PARTITION BY "trace_id", "span_id", "evaluation_name"`);
  });
});

describe("POST /v1/observability/traces/search", () => {
  it("derives traces from the spans table and joins the evaluation counts", async () => {
    answers([...fieldCatalogues.traces.map((f) => f.name), "page_id"], []);
    const response = await invoke(searchTraces, aJsonEvent({ search_expression: "has(models_used, 'm')" }, { path: `${base}/traces/search`, caller }));
    expect(response.statusCode).toBe(200);
    const sql = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString!;
    expect(sql).toContain(`GROUP BY "trace_id"`);
    expect(sql).toContain(`"telemetry_db"."span_evaluations"`);
    expect(sql).toContain(`contains("models_used", ?)`);
  });
});

describe("POST /v1/observability/logs/search", () => {
  it("orders logs as asked", async () => {
    answers([...fieldCatalogues.logs.map((f) => f.name), "page_id"], []);
    await invoke(searchLogs, aJsonEvent({ order: "asc" }, { path: `${base}/logs/search`, caller }));
    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString).toMatch(/ORDER BY from_iso8601_timestamp\("timestamp"\) ASC/);
    expect((await invoke(searchLogs, aJsonEvent({ order: "sideways" }, { path: `${base}/logs/search`, caller }))).statusCode).toBe(422);
  });
});

describe("POST /v1/observability/spans/aggregate", () => {
  it("answers p95 of duration by model per hour with approx_percentile and the meta", async () => {
    answers(["time_bucket", "d0", "metric_value"], [["2026-11-01T10:00:00.000Z", "mistral-small-latest", "250000000.0"]]);
    const response = await invoke(
      aggregateSpans,
      aJsonEvent({ metric: { measure: "duration_ns", aggregation: "p95" }, dimensions: ["request_model"], time_dimension: { granularity: "hour" } }, { path: `${base}/spans/aggregate`, query: { from: "2026-11-01T00:00:00Z", to: "2026-11-02T00:00:00Z" }, caller }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      data: [{ time_bucket: "2026-11-01T10:00:00.000Z", dimensions: { request_model: "mistral-small-latest" }, metric_name: "p95(duration_ns)", metric_value: 250000000 }],
      meta: { from_timestamp: "2026-11-01T00:00:00.000Z", to_timestamp: "2026-11-02T00:00:00.000Z", granularity_seconds: 3600 },
    });
    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString).toContain("approx_percentile(");
  });

  it("refuses a numeric aggregation of a text field, an unknown dimension and a limit over 10000 with 422", async () => {
    const call = (body: unknown) => invoke(aggregateSpans, aJsonEvent(body, { path: `${base}/spans/aggregate`, caller }));
    expect((await call({ metric: { measure: "span_name", aggregation: "avg" } })).json.detail.message).toContain("'avg' is not supported on field 'span_name'");
    expect((await call({ metric: { measure: "duration_ns", aggregation: "avg" }, dimensions: ["colour"] })).statusCode).toBe(422);
    expect((await call({ metric: { measure: "duration_ns", aggregation: "avg" }, limit: 10001 })).statusCode).toBe(422);
    expect((await call({ metric: { measure: "duration_ns", aggregation: "median" } })).statusCode).toBe(422);
    expect(athena.commandCalls(StartQueryExecutionCommand)).toHaveLength(0);
  });
});

describe("POST /v1/observability/spans/evaluations/aggregate", () => {
  it("averages scores by evaluation name with auto granularity", async () => {
    answers(["time_bucket", "d0", "metric_value"], [["2026-11-01T00:00:00.000Z", "helpfulness", "0.75"]]);
    const response = await invoke(
      aggregateEvaluations,
      aJsonEvent({ metric: { measure: "score_value", aggregation: "avg" }, dimensions: ["evaluation_name"], time_dimension: {} }, { path: `${base}/spans/evaluations/aggregate`, query: { from: "2026-11-01T00:00:00Z", to: "2026-11-08T00:00:00Z" }, caller }),
    );
    expect(response.json.meta.granularity_seconds).toBe(3600);
    expect(response.json.data[0]).toMatchObject({ dimensions: { evaluation_name: "helpfulness" }, metric_value: 0.75 });
  });
});

describe("POST /v1/observability/traces/aggregate", () => {
  it("counts traces by status", async () => {
    answers(["d0", "metric_value"], [["Error", "3"]]);
    const response = await invoke(aggregateTraces, aJsonEvent({ metric: { measure: "trace_id", aggregation: "count" }, dimensions: ["status_code"] }, { path: `${base}/traces/aggregate`, caller }));
    expect(response.json.data).toStrictEqual([{ time_bucket: null, dimensions: { status_code: "Error" }, metric_name: "count(trace_id)", metric_value: 3 }]);
    expect(response.json.meta.granularity_seconds).toBeNull();
  });
});

describe.each([
  ["GET /v1/observability/spans/fields", spanFields, `${base}/spans/fields`, "spans"],
  ["GET /v1/observability/spans/evaluations/fields", evaluationFields, `${base}/spans/evaluations/fields`, "span_evaluations"],
  ["GET /v1/observability/traces/fields", traceFields, `${base}/traces/fields`, "traces"],
  ["GET /v1/observability/logs/fields", logFields, `${base}/logs/fields`, "logs"],
] as const)("%s", (_, handler, path, kind) => {
  it("answers the field catalogue with types, operators and aggregations, no query run", async () => {
    const response = await invoke(handler, anEvent({ path, caller }));
    expect(response.statusCode).toBe(200);
    expect(response.json.field_definitions.map((f: { name: string }) => f.name)).toStrictEqual(fieldCatalogues[kind].map((f) => f.name));
    expect(response.json.field_definitions[0]).toStrictEqual({ name: "customer_id", label: "Customer ID", type: "TEXT", group: "owner", supported_operators: expect.any(Array), supported_aggregations: ["count", "count_distinct"] });
    expect(athena.commandCalls(StartQueryExecutionCommand)).toHaveLength(0);
  });
});

describe.each([
  ["GET /v1/observability/spans/fields/{field_name}/options", spanFieldOptions, "spans", "status_code"],
  ["GET /v1/observability/spans/evaluations/fields/{field_name}/options", evaluationFieldOptions, "spans/evaluations", "evaluation_name"],
  ["GET /v1/observability/traces/fields/{field_name}/options", traceFieldOptions, "traces", "status_code"],
  ["GET /v1/observability/logs/fields/{field_name}/options", logFieldOptions, "logs", "severity_text"],
] as const)("%s", (_, handler, kind, field) => {
  it("lists distinct values of an enum field; unknown field 404, non-enum 400", async () => {
    answers(["value"], [["a"], ["b"]]);
    const path = (name: string) => `${base}/${kind}/fields/${name}/options`;
    const response = await invoke(handler, anEvent({ path: path(field), pathParameters: { field_name: field }, caller }));
    expect(response.json).toStrictEqual({ options: ["a", "b"] });
    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString).toContain(`SELECT DISTINCT CAST("${field}" AS VARCHAR)`);
    const unknown = await invoke(handler, anEvent({ path: path("colour"), pathParameters: { field_name: "colour" }, caller }));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json.detail.error_code).toBe("FIELDS_NOT_FOUND");
    const text = await invoke(handler, anEvent({ path: path("trace_id"), pathParameters: { field_name: "trace_id" }, caller }));
    expect(text.statusCode).toBe(400);
    expect(text.json.detail.error_code).toBe("FIELDS_BAD_REQUEST");
  });
});
