/**
 * THE query builder: from a kind, the caller's workspace, a time window and a filter tree (expression.ts) it
 * emits the SQL of both engines, DuckDB locally and Athena (Trino) in the cloud. Only the dialect's small
 * functions differ. Every value the caller gave is a bound parameter (DuckDB `$n`, Athena `?` filled from
 * ExecutionParameters); every identifier is a catalogue field's name; the workspace predicate comes from the
 * caller's key, never from the expression. Traces are derived from spans here (`traceRelation`), following
 * the contract's rules (docs/observability/engine.md).
 */
import type { Aggregation, Field } from "./fields.js";
import { fieldCatalogues, timeField } from "./fields.js";
import type { FieldRef, Filter, Literal } from "./expression.js";
import type { TelemetryKind, WrittenKind } from "./records.js";

export type DialectName = "duckdb" | "athena";

export interface Dialect {
  name: DialectName;
  /** The placeholder of the n-th (1-based) parameter. */
  placeholder(n: number): string;
  /** A written kind's table: a view the local runner makes over the files, or the Glue table. */
  table(kind: WrittenKind): string;
  /** An ISO-8601 string column or parameter as a timestamp. */
  ts(expr: string): string;
  /** A timestamp as microseconds since the epoch. */
  epochUs(ts: string): string;
  /** A timestamp as an ISO-8601 string ending in Z. */
  iso(ts: string): string;
  ilike(expr: string, pattern: string): string;
  regexp(expr: string, pattern: string): string;
  contains(expr: string, needle: string): string;
  hasToken(expr: string, token: string): string;
  mapGet(map: string, key: string): string;
  mapSize(map: string): string;
  arrayLength(array: string): string;
  arrayHas(array: string, value: string): string;
  arrayHasAny(array: string, values: string[]): string;
  arrayHasAll(array: string, values: string[]): string;
  /** An ARRAY or MAP value as its JSON text. */
  json(expr: string): string;
  percentile(expr: string, fraction: number): string;
  /** The sorted distinct non-null values of a group as an array (never null). */
  sortedDistinct(expr: string): string;
  /** The text of the last message of a GenAI messages JSON array ('' when there is none). */
  lastMessageText(expr: string): string;
  /** A hash of a string as lower-case hex (log and evaluation ids for paging). */
  hash(expr: string): string;
}

export const duckdb: Dialect = {
  name: "duckdb",
  placeholder: (n) => `$${n}`,
  table: (kind) => `"${kind}"`,
  ts: (e) => `CAST(${e} AS TIMESTAMP)`,
  epochUs: (t) => `epoch_us(${t})`,
  iso: (t) => `strftime(${t}, '%Y-%m-%dT%H:%M:%SZ')`,
  ilike: (e, p) => `(${e} ILIKE ${p})`,
  regexp: (e, p) => `regexp_matches(${e}, ${p})`,
  contains: (e, n) => `contains(${e}, ${n})`,
  hasToken: (e, t) => `list_contains(regexp_split_to_array(${e}, '[^A-Za-z0-9_]+'), ${t})`,
  mapGet: (m, k) => `${m}[${k}]`,
  mapSize: (m) => `cardinality(${m})`,
  arrayLength: (a) => `len(${a})`,
  arrayHas: (a, v) => `list_contains(${a}, ${v})`,
  arrayHasAny: (a, vs) => `list_has_any(${a}, [${vs.join(", ")}])`,
  arrayHasAll: (a, vs) => `list_has_all(${a}, [${vs.join(", ")}])`,
  json: (e) => `CAST(to_json(${e}) AS VARCHAR)`,
  percentile: (e, q) => `quantile_cont(${e}, ${q})`,
  sortedDistinct: (e) => `coalesce(list_sort(list_distinct(list(${e}))), CAST([] AS VARCHAR[]))`,
  lastMessageText: (e) =>
    `coalesce(CASE WHEN json_valid(${e}) THEN array_to_string(list_transform(list_filter(CAST(json_extract(${e}, '$[#-1].parts') AS STRUCT("type" VARCHAR, content VARCHAR)[]), p -> p."type" = 'text'), p -> p.content), chr(10)) END, '')`,
  hash: (e) => `md5(${e})`,
};

export const athena = (database: string): Dialect => ({
  name: "athena",
  placeholder: () => "?",
  table: (kind) => `"${database}"."${kind}"`,
  ts: (e) => `from_iso8601_timestamp(${e})`,
  epochUs: (t) => `CAST(to_unixtime(${t}) * 1000000 AS BIGINT)`,
  iso: (t) => `to_iso8601(${t})`,
  ilike: (e, p) => `(lower(${e}) LIKE lower(${p}))`,
  regexp: (e, p) => `regexp_like(${e}, ${p})`,
  contains: (e, n) => `(strpos(${e}, ${n}) > 0)`,
  hasToken: (e, t) => `contains(regexp_split(${e}, '[^A-Za-z0-9_]+'), ${t})`,
  mapGet: (m, k) => `element_at(${m}, ${k})`,
  mapSize: (m) => `cardinality(${m})`,
  arrayLength: (a) => `cardinality(${a})`,
  arrayHas: (a, v) => `contains(${a}, ${v})`,
  arrayHasAny: (a, vs) => `arrays_overlap(${a}, ARRAY[${vs.join(", ")}])`,
  arrayHasAll: (a, vs) => `(cardinality(array_except(ARRAY[${vs.join(", ")}], ${a})) = 0)`,
  json: (e) => `json_format(CAST(${e} AS JSON))`,
  percentile: (e, q) => `approx_percentile(${e}, ${q})`,
  sortedDistinct: (e) => `coalesce(array_sort(array_distinct(filter(array_agg(${e}), x -> x IS NOT NULL))), CAST(ARRAY[] AS ARRAY(VARCHAR)))`,
  lastMessageText: (e) =>
    `coalesce(try(array_join(transform(filter(CAST(json_extract(element_at(CAST(json_parse(${e}) AS ARRAY(JSON)), -1), '$.parts') AS ARRAY(ROW("type" VARCHAR, content VARCHAR))), p -> p."type" = 'text'), p -> p.content), chr(10))), '')`,
  hash: (e) => `lower(to_hex(md5(to_utf8(${e}))))`,
});

/** A statement and its parameters, in placeholder order. */
export interface Sql {
  text: string;
  params: Literal[];
}

/** Collects parameters while a statement is built. */
class Binder {
  readonly params: Literal[] = [];
  constructor(private readonly dialect: Dialect) {}
  bind(value: Literal): string {
    this.params.push(value);
    return this.dialect.placeholder(this.params.length);
  }
}

export interface Window {
  /** ISO-8601 instants, inclusive from, exclusive to. */
  from: string;
  to: string;
}

export interface Scope {
  workspace: string;
  window: Window;
}

const quote = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a column name: ${name}`);
  return `"${name}"`;
};

const DAY_MS = 86_400_000;
const day = (iso: string, shiftDays = 0) => new Date(Date.parse(iso) + shiftDays * DAY_MS).toISOString().slice(0, 10);

/** A written kind's rows of the workspace and the days of the window (the partitions Athena prunes to). */
function scoped(d: Dialect, b: Binder, kind: WrittenKind, scope: Scope, widenDays = 0): string {
  return `(SELECT * FROM ${d.table(kind)} WHERE "workspace_id" = ${b.bind(scope.workspace)} AND "dt" BETWEEN ${b.bind(day(scope.window.from, -widenDays))} AND ${b.bind(day(scope.window.to, widenDays))})`;
}

const LLM_OPERATIONS = "('chat', 'text_completion', 'generate_content')";

/** Traces derived from the workspace's spans (and the count of their evaluations), one row per trace_id. */
function traceRelation(d: Dialect, b: Binder, scope: Scope): string {
  // A trace's spans may start before the window's first day or after its last: read a day more on each side.
  const spans = scoped(d, b, "spans", scope, 1);
  const evaluations = scoped(d, b, "span_evaluations", scope, 1);
  const st = `"st"`;
  const llmAt = `CASE WHEN "operation_name" IN ${LLM_OPERATIONS} THEN ${st} END`;
  const root = (col: string) => `min_by(${quote(col)}, "rk") AS ${quote(col)}`;
  const firstNonEmpty = (col: string) => `coalesce(min_by(${quote(col)}, CASE WHEN ${quote(col)} <> '' THEN ${st} END), '') AS ${quote(col)}`;
  const env = `coalesce(nullif(${d.mapGet(`"resource_attributes"`, `'deployment.environment.name'`)}, ''), nullif(${d.mapGet(`"resource_attributes"`, `'deployment.environment'`)}, ''), '')`;
  const grouped = `SELECT
    ${root("customer_id")}, ${root("organization_id")}, ${root("workspace_id")}, ${root("user_id")},
    "trace_id",
    min_by("span_id", "rk") AS "root_span_id", min_by("span_name", "rk") AS "root_span_name",
    min_by("start_time", ${st}) AS "start_time", max_by("end_time", "et") AS "end_time",
    (max("et") - min(${st})) * 1000 AS "duration_ns",
    ${root("service_name")},
    min_by(${env}, "rk") AS "environment",
    ${firstNonEmpty("conversation_id")}, ${firstNonEmpty("workflow_name")}, ${firstNonEmpty("agent_id")}, ${firstNonEmpty("agent_name")},
    CASE WHEN count_if("status_code" = 'Error') > 0 THEN 'Error' ELSE 'Unset' END AS "status_code",
    count_if("status_code" = 'Error') AS "error_count",
    count(*) AS "span_count",
    count_if("operation_name" <> '') AS "gen_ai_span_count",
    count_if("operation_name" IN ${LLM_OPERATIONS}) AS "llm_call_count",
    count_if("operation_name" = 'execute_tool') AS "tool_call_count",
    count_if("operation_name" IN ('retrieval', 'embeddings')) AS "retrieval_count",
    sum("usage_input_tokens") AS "input_tokens", sum("usage_output_tokens") AS "output_tokens",
    sum("usage_cache_read_input_tokens") AS "cache_read_input_tokens", sum("usage_cache_creation_input_tokens") AS "cache_creation_input_tokens",
    ${d.sortedDistinct(`CASE WHEN "response_model" <> '' THEN "response_model" WHEN "request_model" <> '' THEN "request_model" END`)} AS "models_used",
    ${d.sortedDistinct(`nullif("tool_name", '')`)} AS "tools_used",
    min_by("input_messages", ${llmAt}) AS "first_in", min_by("output_messages", ${llmAt}) AS "first_out",
    max_by("input_messages", ${llmAt}) AS "last_in", max_by("output_messages", ${llmAt}) AS "last_out"
  FROM (SELECT *, ${d.epochUs(d.ts(`"start_time"`))} AS "st", ${d.epochUs(d.ts(`"end_time"`))} AS "et",
      CASE WHEN "parent_span_id" = '' THEN 0 ELSE 100000000000000000 END + ${d.epochUs(d.ts(`"start_time"`))} AS "rk"
    FROM ${spans} AS s WHERE "span_id" IS NOT NULL) AS s
  GROUP BY "trace_id"`;
  const outputs = fieldCatalogues.traces
    .filter((f) => f.name !== "evaluation_count" && !f.name.includes("_turn_"))
    .map((f) => `g.${quote(f.name)}`)
    .join(", ");
  return `(SELECT ${outputs},
    coalesce(e."n", 0) AS "evaluation_count",
    ${d.lastMessageText(`g."first_in"`)} AS "first_turn_last_input_message", ${d.lastMessageText(`g."first_out"`)} AS "first_turn_last_output_message",
    ${d.lastMessageText(`g."last_in"`)} AS "last_turn_last_input_message", ${d.lastMessageText(`g."last_out"`)} AS "last_turn_last_output_message"
  FROM (${grouped}) AS g
  LEFT JOIN (SELECT "trace_id", count(*) AS "n" FROM ${evaluations} AS v GROUP BY "trace_id") AS e ON e."trace_id" = g."trace_id")`;
}

/** The rows a kind's query reads: the workspace's, within the window's days (traces derived from spans). */
function relation(d: Dialect, b: Binder, kind: TelemetryKind, scope: Scope): string {
  return kind === "traces" ? traceRelation(d, b, scope) : scoped(d, b, kind, scope);
}

/** A field (or a MAP field's key) as a SQL expression over the relation's row. */
function column(d: Dialect, b: Binder, ref: FieldRef): string {
  const col = quote(ref.field.name);
  return ref.key === undefined ? col : d.mapGet(col, b.bind(ref.key));
}

function windowPredicate(d: Dialect, b: Binder, kind: TelemetryKind, window: Window): string {
  const t = d.ts(quote(timeField(kind)));
  return `${t} >= ${d.ts(b.bind(window.from))} AND ${t} < ${d.ts(b.bind(window.to))}`;
}

/** The filter tree as a predicate; every value a parameter. */
export function predicate(d: Dialect, b: Binder, filter: Filter): string {
  switch (filter.kind) {
    case "and":
    case "or":
      return `(${filter.items.map((item) => predicate(d, b, item)).join(filter.kind === "and" ? " AND " : " OR ")})`;
    case "not":
      return `(NOT coalesce(${predicate(d, b, filter.item)}, false))`;
    case "condition":
      return condition(d, b, filter.ref, filter.op, filter.values);
  }
}

function condition(d: Dialect, b: Binder, ref: FieldRef, op: string, values: Literal[]): string {
  const { field } = ref;
  const col = column(d, b, ref);
  const isTime = field.type === "TIMESTAMP";
  const lhs = isTime ? d.ts(col) : col;
  const v = (value: Literal) => (isTime ? d.ts(b.bind(new Date(String(value).length === 10 ? `${value}T00:00:00Z` : String(value)).toISOString())) : b.bind(value));
  const not = (sql: string) => `(NOT coalesce(${sql}, false))`;
  switch (op) {
    case "eq": return `(${lhs} = ${v(values[0]!)})`;
    case "neq": return `(${lhs} <> ${v(values[0]!)})`;
    case "lt": return `(${lhs} < ${v(values[0]!)})`;
    case "lte": return `(${lhs} <= ${v(values[0]!)})`;
    case "gt": return `(${lhs} > ${v(values[0]!)})`;
    case "gte": return `(${lhs} >= ${v(values[0]!)})`;
    case "between": return `(${lhs} BETWEEN ${v(values[0]!)} AND ${v(values[1]!)})`;
    case "not_between": return not(`(${lhs} BETWEEN ${v(values[0]!)} AND ${v(values[1]!)})`);
    case "in": return `(${lhs} IN (${values.map(v).join(", ")}))`;
    case "not_in": return not(`(${lhs} IN (${values.map(v).join(", ")}))`);
    case "like": return `(${col} LIKE ${b.bind(values[0]!)})`;
    case "not_like": return not(`(${col} LIKE ${b.bind(values[0]!)})`);
    case "ilike": return d.ilike(col, b.bind(values[0]!));
    case "not_ilike": return not(d.ilike(col, b.bind(values[0]!)));
    case "regexp": return d.regexp(col, b.bind(values[0]!));
    case "not_regexp": return not(d.regexp(col, b.bind(values[0]!)));
    case "contains": return d.contains(col, b.bind(values[0]!));
    case "not_contains": return not(d.contains(col, b.bind(values[0]!)));
    case "hasToken": return d.hasToken(col, b.bind(values[0]!));
    case "has": return d.arrayHas(col, b.bind(values[0]!));
    case "hasAny": return d.arrayHasAny(col, values.map((x) => b.bind(x)));
    case "hasAll": return d.arrayHasAll(col, values.map((x) => b.bind(x)));
    case "exists":
    case "not_exists": {
      const present =
        field.type === "ARRAY" ? `(${d.arrayLength(col)} > 0)`
        : field.type === "MAP" && ref.key === undefined ? `(${d.mapSize(col)} > 0)`
        : field.storage === "int" || field.storage === "float" ? `(${col} IS NOT NULL)`
        : `(${col} IS NOT NULL AND ${col} <> '')`;
      return op === "exists" ? `coalesce(${present}, false)` : not(present);
    }
    default:
      throw new Error(`operator ${op} has no SQL`);
  }
}

/** What a row is paged by: its instant and a tie-breaking id. */
function pageKey(d: Dialect, kind: TelemetryKind): { time: string; id: string } {
  const time = quote(timeField(kind));
  switch (kind) {
    case "spans":
      return { time, id: `("trace_id" || "span_id")` };
    case "traces":
      return { time, id: `"trace_id"` };
    case "span_evaluations":
      return { time, id: `("trace_id" || "span_id" || "evaluation_name")` };
    case "logs":
      return { time, id: d.hash(`("trace_id" || "span_id" || "severity_text" || "body")`) };
  }
}

/** A row's column as the runners hand it back: ARRAY and MAP columns as JSON text. */
function output(d: Dialect, field: Field): string {
  const col = quote(field.name);
  return field.storage === "strings" || field.storage === "map" ? `${d.json(col)} AS ${col}` : col;
}

export interface SearchQuery {
  kind: TelemetryKind;
  scope: Scope;
  filter?: Filter;
  /** Latest evaluation per (trace, span, evaluation name) only (span evaluations). */
  latest?: boolean;
  order: "asc" | "desc";
  /** Rows after this key in the order (the cursor). */
  after?: { time: string; id: string };
  limit: number;
}

/** A page of a kind's rows, newest first unless asked otherwise, keyset-paged on (time, id). */
export function searchSql(d: Dialect, q: SearchQuery): Sql {
  const b = new Binder(d);
  const fields = fieldCatalogues[q.kind];
  const key = pageKey(d, q.kind);
  let source = relation(d, b, q.kind, q.scope);
  if (q.latest) {
    source = `(SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY "trace_id", "span_id", "evaluation_name" ORDER BY ${d.ts(`"timestamp"`)} DESC) AS "rn" FROM ${source} AS l) AS l WHERE "rn" = 1)`;
  }
  const where = [windowPredicate(d, b, q.kind, q.scope.window)];
  if (q.filter) where.push(predicate(d, b, q.filter));
  if (q.after) {
    const cmp = q.order === "desc" ? "<" : ">";
    const t = d.ts(key.time);
    const at = d.ts(b.bind(q.after.time));
    where.push(`(${t} ${cmp} ${at} OR (${t} = ${d.ts(b.bind(q.after.time))} AND ${key.id} ${cmp} ${b.bind(q.after.id)}))`);
  }
  const dir = q.order === "desc" ? "DESC" : "ASC";
  const text = `SELECT ${fields.map((f) => output(d, f)).join(", ")}, ${key.id} AS "page_id"
FROM ${source} AS r
WHERE ${where.join("\n  AND ")}
ORDER BY ${d.ts(key.time)} ${dir}, "page_id" ${dir}
LIMIT ${Math.trunc(q.limit)}`;
  return { text, params: b.params };
}

export const granularities = ["second", "minute", "hour", "day", "week", "month"] as const;
export type Granularity = (typeof granularities)[number];
export const granularitySeconds: Record<Granularity, number> = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800, month: 2_592_000 };

export interface AggregateQuery {
  kind: TelemetryKind;
  scope: Scope;
  filter?: Filter;
  /** The measured field; undefined counts rows. */
  measure?: FieldRef;
  aggregation: Aggregation;
  dimensions: FieldRef[];
  granularity?: Granularity;
  orderBy: { target: "time_bucket" | "metric_value" | number; direction: "asc" | "desc" }[];
  limit: number;
}

const PERCENTILES: Partial<Record<Aggregation, number>> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

function metric(d: Dialect, b: Binder, q: AggregateQuery): string {
  if (!q.measure) return q.aggregation === "count" ? "count(*)" : (() => { throw new Error("a measure is needed"); })();
  const col = column(d, b, q.measure);
  const fraction = PERCENTILES[q.aggregation];
  if (fraction !== undefined) return d.percentile(`CAST(${col} AS DOUBLE)`, fraction);
  switch (q.aggregation) {
    case "count": return `count(${col})`;
    case "count_distinct": return q.measure.field.storage === "strings" || q.measure.field.storage === "map" ? `count(DISTINCT ${d.json(col)})` : `count(DISTINCT ${col})`;
    default: return `${q.aggregation}(CAST(${col} AS DOUBLE))`;
  }
}

/** Columns: time_bucket (when bucketed), d0…dn (the dimensions), metric_value. */
export function aggregateSql(d: Dialect, q: AggregateQuery): Sql {
  const b = new Binder(d);
  const source = relation(d, b, q.kind, q.scope);
  const selects: string[] = [];
  const groups: string[] = [];
  if (q.granularity) {
    selects.push(`${d.iso(`date_trunc('${q.granularity}', ${d.ts(quote(timeField(q.kind)))})`)} AS "time_bucket"`);
    groups.push(`"time_bucket"`);
  }
  q.dimensions.forEach((ref, i) => {
    const col = column(d, b, ref);
    selects.push(`${ref.field.storage === "strings" || ref.field.storage === "map" ? d.json(col) : col} AS "d${i}"`);
    groups.push(`"d${i}"`);
  });
  selects.push(`${metric(d, b, q)} AS "metric_value"`);
  const where = [windowPredicate(d, b, q.kind, q.scope.window)];
  if (q.filter) where.push(predicate(d, b, q.filter));
  const order = q.orderBy.length
    ? q.orderBy.map((o) => `${typeof o.target === "number" ? `"d${o.target}"` : `"${o.target}"`} ${o.direction === "desc" ? "DESC" : "ASC"} NULLS LAST`)
    : [...groups.map((g) => `${g} ASC NULLS LAST`), `"metric_value" DESC NULLS LAST`];
  const text = `SELECT ${selects.join(", ")}
FROM ${source} AS r
WHERE ${where.join("\n  AND ")}${groups.length ? `\nGROUP BY ${groups.join(", ")}` : ""}
ORDER BY ${order.join(", ")}
LIMIT ${Math.trunc(q.limit)}`;
  return { text, params: b.params };
}

/** The distinct values of a field seen in the window (the `/options` routes). */
export function optionsSql(d: Dialect, kind: TelemetryKind, scope: Scope, field: Field, limit = 1000): Sql {
  const b = new Binder(d);
  const source = relation(d, b, kind, scope);
  const col = quote(field.name);
  const text = `SELECT DISTINCT CAST(${col} AS VARCHAR) AS "value"
FROM ${source} AS r
WHERE ${windowPredicate(d, b, kind, scope.window)} AND ${col} IS NOT NULL AND CAST(${col} AS VARCHAR) <> ''
ORDER BY "value"
LIMIT ${Math.trunc(limit)}`;
  return { text, params: b.params };
}
