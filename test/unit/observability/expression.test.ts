import { describe, expect, it } from "vitest";
import { ExpressionError, parseExpression, type Filter } from "../../../shared/domain/observability/expression.js";
import { fieldCatalogues } from "../../../shared/domain/observability/fields.js";
import { aggregateSql, athena, duckdb, searchSql, type Scope } from "../../../shared/domain/observability/query.js";

const problem = (kind: Parameters<typeof parseExpression>[0], text: string) => {
  try {
    parseExpression(kind, text);
  } catch (error) {
    if (error instanceof ExpressionError) return { position: error.position, problem: error.problem };
    throw error;
  }
  return undefined;
};
const cond = (filter: Filter | undefined) => (filter?.kind === "condition" ? { field: filter.ref.field.name, key: filter.ref.key, op: filter.op, values: filter.values } : filter);

describe("the search expression parser", () => {
  it("reads comparisons, named operators, functions, NOT, AND before OR and parentheses into one tree", () => {
    expect(cond(parseExpression("spans", "status_code = 'Error'"))).toStrictEqual({ field: "status_code", key: undefined, op: "eq", values: ["Error"] });
    expect(cond(parseExpression("spans", "duration_ns >= 1e6"))).toMatchObject({ op: "gte", values: [1_000_000] });
    expect(cond(parseExpression("spans", "request_model not in ('a', \"b\")"))).toMatchObject({ op: "not_in", values: ["a", "b"] });
    expect(cond(parseExpression("spans", "duration_ns NOT BETWEEN 1 AND 5"))).toMatchObject({ op: "not_between", values: [1, 5] });
    expect(cond(parseExpression("spans", "span_name not_ilike '%x%'"))).toMatchObject({ op: "not_ilike" });
    expect(cond(parseExpression("spans", "hasAll(response_finish_reasons, ['stop', 'length'])"))).toMatchObject({ op: "hasAll", values: ["stop", "length"] });
    expect(cond(parseExpression("spans", "response_finish_reasons hasAny ('stop')"))).toMatchObject({ op: "hasAny", values: ["stop"] });
    expect(cond(parseExpression("spans", "span_attributes['gen_ai.system'] = 'x'"))).toMatchObject({ field: "span_attributes", key: "gen_ai.system" });
    expect(cond(parseExpression("spans", "resource_attributes.service.name exists"))).toMatchObject({ key: "service.name", op: "exists" });
    expect(cond(parseExpression("spans", "error_type IS NOT NULL"))).toMatchObject({ op: "exists" });
    expect(cond(parseExpression("spans", "start_time > '2026-11-01T00:00:00Z'"))).toMatchObject({ op: "gt" });
    const tree = parseExpression("spans", "a_ = 1".replace("a_", "span_kind") + " OR NOT (status_code = 'Ok' AND duration_ns < 5)");
    expect(tree?.kind).toBe("or");
    expect(tree?.kind === "or" && tree.items[1]!.kind).toBe("not");
    expect(parseExpression("spans", "  ")).toBeUndefined();
  });

  it("names the position and the problem of a bad expression", () => {
    expect(problem("spans", "colour = 'red'")).toStrictEqual({ position: 0, problem: "unknown field 'colour'" });
    expect(problem("spans", "status_code = ")).toMatchObject({ position: 14, problem: expect.stringContaining("expected a value") });
    expect(problem("spans", "status_code = 'Error")).toMatchObject({ position: 14, problem: "unterminated string" });
    expect(problem("spans", "duration_ns > 'slow'")).toMatchObject({ position: 12, problem: expect.stringContaining("not a number") });
    expect(problem("spans", "duration_ns like '1%'")).toMatchObject({ problem: expect.stringContaining("not supported on field 'duration_ns' (INT)") });
    expect(problem("spans", "(status_code = 'Ok'")).toMatchObject({ position: 19, problem: expect.stringContaining("expected ')'") });
    expect(problem("spans", "status_code = 'Ok' status_code")).toMatchObject({ position: 19 });
    expect(problem("spans", "span_name regexp '('")).toMatchObject({ problem: expect.stringContaining("regular expression") });
    expect(problem("traces", "span_name = 'x'")).toMatchObject({ problem: "unknown field 'span_name'" });
    expect(problem("spans", "(".repeat(60) + "status_code = 'Ok'" + ")".repeat(60))).toMatchObject({ problem: expect.stringContaining("nests deeper") });
  });

  it("refuses an INT literal beyond the 64-bit range with a problem (the engine's 500 before), and takes one within it", () => {
    expect(problem("spans", "duration_ns > 99999999999999999999")).toMatchObject({ position: 12, problem: expect.stringContaining("beyond the 64-bit integer range") });
    expect(problem("spans", "usage_input_tokens in (1, -9223372036854775809999)")).toMatchObject({ problem: expect.stringContaining("beyond the 64-bit integer range") });
    expect(problem("spans", "duration_ns > 9.3e18")).toMatchObject({ problem: expect.stringContaining("beyond the 64-bit integer range") });
    expect(cond(parseExpression("spans", "duration_ns > 9223372036854774784"))).toMatchObject({ values: [9223372036854774784] });
    expect(cond(parseExpression("spans", "duration_ns > -9223372036854775808"))).toMatchObject({ values: [-(2 ** 63)] });
  });

  it("refuses or binds injections: quotes, comments, semicolons, unicode and field names with SQL", () => {
    for (const text of [
      "status_code = 'Ok'; DROP TABLE spans",
      "status_code = 'Ok' -- comment",
      "status_code = 'Ok' /* x */",
      "\"status_code\" = 'Ok'",
      "status_code) OR 1=1 --",
      "workspace_id = 'x' OR 1 = 1",
      "span_attributes['k'] = 'v' UNION SELECT * FROM logs",
      "status_code\u037e = 'Ok'",
      "ｓtatus_code = 'Ok'",
    ]) {
      expect(problem("spans", text), text).toBeDefined();
    }
    // What parses is bound: the hostile text is a parameter, never SQL.
    const hostile = "x' OR '1'='1'; DROP TABLE spans; --\u0000é";
    const filter = parseExpression("spans", `span_attributes['${hostile.replace(/'/g, "\\'")}'] = '${hostile.replace(/'/g, "''")}' OR workspace_id = 'other'`);
    for (const d of [duckdb, athena("telemetry")]) {
      const sql = searchSql(d, { kind: "spans", scope, filter, order: "desc", limit: 10 });
      expect(sql.text).not.toContain("DROP");
      expect(sql.text).not.toContain("other");
      expect(sql.params.filter((p) => p === hostile)).toHaveLength(2);
      // The caller's workspace is bound first, whatever the expression says about workspace_id.
      expect(sql.params[0]).toBe("ws-1");
      expect(sql.text).toMatch(/WHERE "workspace_id" = (\$1|\?) AND "dt" BETWEEN/);
    }
  });
});

const scope: Scope = { workspace: "ws-1", window: { from: "2026-11-01T00:00:00.000Z", to: "2026-11-08T00:00:00.000Z" } };

describe("the query builder's two dialects", () => {
  const filter = parseExpression("spans", "span_name ilike '%chat%' AND error_type regexp '^t' AND has(response_finish_reasons, 'stop') AND hasAll(request_stop_sequences, ['a','b']) AND span_attributes['k'] = 'v' AND start_time >= '2026-11-02'");

  it("DuckDB: $n placeholders, ILIKE, regexp_matches, list functions, map subscripts, CAST AS TIMESTAMP", () => {
    const { text, params } = searchSql(duckdb, { kind: "spans", scope, filter, order: "desc", limit: 51 });
    expect(text).toContain(`FROM "spans" WHERE "workspace_id" = $1 AND "dt" BETWEEN $2 AND $3`);
    expect(text).toContain(`("span_name" ILIKE $6)`);
    expect(text).toContain(`regexp_matches("error_type", $7)`);
    expect(text).toContain(`list_contains("response_finish_reasons", $8)`);
    expect(text).toContain(`list_has_all("request_stop_sequences", [$9, $10])`);
    expect(text).toContain(`"span_attributes"[$11] = $12`);
    expect(text).toContain(`CAST("start_time" AS TIMESTAMP) >= CAST($13 AS TIMESTAMP)`);
    expect(text).toContain("LIMIT 51");
    expect(params).toStrictEqual(["ws-1", "2026-11-01", "2026-11-08", scope.window.from, scope.window.to, "%chat%", "^t", "stop", "a", "b", "k", "v", "2026-11-02T00:00:00.000Z"]);
  });

  it("Athena: ? placeholders, lower() LIKE, regexp_like, contains/array_except, element_at, from_iso8601_timestamp", () => {
    const { text, params } = searchSql(athena("telemetry_db"), { kind: "spans", scope, filter, order: "desc", limit: 51 });
    expect(text).toContain(`FROM "telemetry_db"."spans" WHERE "workspace_id" = ? AND "dt" BETWEEN ? AND ?`);
    expect(text).toContain(`(lower("span_name") LIKE lower(?))`);
    expect(text).toContain(`regexp_like("error_type", ?)`);
    expect(text).toContain(`contains("response_finish_reasons", ?)`);
    expect(text).toContain(`(cardinality(array_except(ARRAY[?, ?], "request_stop_sequences")) = 0)`);
    expect(text).toContain(`element_at("span_attributes", ?) = ?`);
    expect(text).toContain(`from_iso8601_timestamp("start_time") >= from_iso8601_timestamp(?)`);
    expect(text).toContain(`json_format(CAST("span_attributes" AS JSON))`);
    expect(text).not.toMatch(/\$\d/);
    expect(params).toHaveLength(13);
  });

  it("percentiles, time buckets and the trace derivation differ only in their functions", () => {
    const q = { kind: "spans" as const, scope, measure: { field: fieldCatalogues.spans.find((f) => f.name === "duration_ns")! }, aggregation: "p95" as const, dimensions: [{ field: fieldCatalogues.spans.find((f) => f.name === "request_model")! }], granularity: "hour" as const, orderBy: [], limit: 100 };
    const duck = aggregateSql(duckdb, q).text;
    const trino = aggregateSql(athena("db"), q).text;
    expect(duck).toContain(`quantile_cont(CAST("duration_ns" AS DOUBLE), 0.95)`);
    expect(trino).toContain(`approx_percentile(CAST("duration_ns" AS DOUBLE), 0.95)`);
    expect(duck).toContain(`strftime(date_trunc('hour', CAST("start_time" AS TIMESTAMP)), '%Y-%m-%dT%H:%M:%SZ') AS "time_bucket"`);
    expect(trino).toContain(`to_iso8601(date_trunc('hour', from_iso8601_timestamp("start_time"))) AS "time_bucket"`);
    const traces = { kind: "traces" as const, scope, order: "desc" as const, limit: 10 };
    expect(searchSql(duckdb, traces).text).toContain("list_sort(list_distinct(list(");
    expect(searchSql(athena("db"), traces).text).toContain("array_sort(array_distinct(filter(array_agg(");
    expect(searchSql(athena("db"), traces).text).toContain("CAST(to_unixtime(");
    expect(searchSql(duckdb, traces).text).toContain("epoch_us(");
  });
});
