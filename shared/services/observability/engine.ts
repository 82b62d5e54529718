/**
 * The observability engine's operations (docs/observability/engine.md): search, aggregate, field
 * definitions and field options over spans, span evaluations, traces (derived from spans) and logs. Parses
 * the expression once (domain/observability/expression.ts), builds the SQL once (query.ts) and runs it on
 * the deployment's engine (DuckDB locally, Athena in the cloud); the workspace is always the caller's.
 */
import { telemetryRetentionDays } from "../../config.js";
import { ApiError } from "../../domain/errors.js";
import { ExpressionError, parseExpression, parseFieldRef, type FieldRef, type Filter } from "../../domain/observability/expression.js";
import { fieldCatalogues, fieldDefinitions, fieldOf, type Aggregation, type FieldDefinition } from "../../domain/observability/fields.js";
import { aggregateSql, granularitySeconds, optionsSql, searchSql, type Granularity, type Scope, type Window } from "../../domain/observability/query.js";
import type { TelemetryKind } from "../../domain/observability/records.js";
import type { AggregationBody } from "../../schemas/observability/engine.js";
import { analyticsEngine, type Row } from "../../store/observability/analytics.js";

const DAY_MS = 86_400_000;

const observabilityError = (status: number, message: string, code: string, param: string | null = null) =>
  new ApiError(status, "invalid_request_error", message, code.toLowerCase(), param, { familyCodes: { observability: code } });

/** The window of a request: `to` defaults to now, `from` to the retention period before `to` (everything still kept). */
export function windowOf(query: { from?: string; to?: string }, now = new Date()): Window {
  const to = query.to ? new Date(query.to) : now;
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - telemetryRetentionDays() * DAY_MS);
  if (from.getTime() >= to.getTime()) throw observabilityError(422, "`from` must be before `to`", "VALIDATION_ERROR", "from");
  return { from: from.toISOString(), to: to.toISOString() };
}

function parsed<T>(what: () => T): T {
  try {
    return what();
  } catch (error) {
    if (error instanceof ExpressionError) throw observabilityError(422, error.message, "SEARCH_BAD_REQUEST", "search_expression");
    throw error;
  }
}

/** A row as the API shows it: numbers as numbers, ARRAY and MAP fields as arrays and objects. */
function decode(kind: TelemetryKind, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fieldCatalogues[kind]) {
    const value = row[field.name] ?? null;
    switch (field.storage) {
      case "int":
        out[field.name] = value === null ? 0 : Number(value);
        break;
      case "float":
        out[field.name] = value === null ? null : Number(value);
        break;
      case "strings":
        out[field.name] = value === null ? [] : (JSON.parse(String(value)) as unknown[]).filter((v) => v !== null);
        break;
      case "map":
        out[field.name] = value === null ? {} : JSON.parse(String(value));
        break;
      default:
        out[field.name] = value === null ? "" : String(value);
    }
  }
  return out;
}

export interface CursorKey {
  time: string;
  id: string;
}

const encodeCursor = (key: CursorKey) => Buffer.from(JSON.stringify({ t: key.time, i: key.id })).toString("base64url");

function decodeCursor(cursor: string): CursorKey {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { t?: unknown; i?: unknown };
    if (typeof value.t === "string" && typeof value.i === "string" && !Number.isNaN(Date.parse(value.t))) return { time: value.t, id: value.i };
  } catch {
    // falls through
  }
  throw observabilityError(422, "Invalid cursor: use the `cursor` of a previous page", "VALIDATION_ERROR", "cursor");
}

export interface SearchRequest {
  from?: string;
  to?: string;
  page_size: number;
  cursor?: string;
  search_expression?: string | null;
  order?: "asc" | "desc";
  /** Span evaluations: only the latest per (span, evaluation name). */
  latest?: boolean;
}

export interface Feed {
  results: Record<string, unknown>[];
  next: string | null;
  cursor: string | null;
}

/** A page of a kind's records in the caller's workspace matching the expression, newest first (logs: as asked). */
export async function searchTelemetry(workspace: string, kind: TelemetryKind, request: SearchRequest, options: { signal?: AbortSignal } = {}): Promise<Feed> {
  const window = windowOf(request);
  const filter = parsed(() => parseExpression(kind, request.search_expression));
  const after = request.cursor ? decodeCursor(request.cursor) : undefined;
  if (request.page_size === 0) return { results: [], next: null, cursor: null };
  const engine = analyticsEngine();
  const scope: Scope = { workspace, window };
  const sql = searchSql(engine.dialect, { kind, scope, filter, latest: request.latest, order: request.order ?? "desc", after, limit: request.page_size + 1 });
  const rows = await engine.run(sql, scope, options);
  const page = rows.slice(0, request.page_size);
  const last = page.at(-1);
  const more = rows.length > request.page_size && last !== undefined;
  const cursor = more ? encodeCursor({ time: String(last[kind === "logs" || kind === "span_evaluations" ? "timestamp" : "start_time"]), id: String(last.page_id) }) : null;
  return { results: page.map((row) => decode(kind, row)), next: cursor, cursor };
}

/**
 * The records of a kind in the window after `after` in ascending (time, id) order, each with its page key: the sweeps
 * of evaluation pipelines (shared/services/observability/pipelines.ts, decision 65) read through the same builder and
 * engine as the search routes, so a pipeline's filter means what it means in a search.
 */
export async function telemetryAfter(workspace: string, kind: TelemetryKind, filter: Filter | undefined, window: Window, after: CursorKey | undefined, limit: number): Promise<{ record: Record<string, unknown>; key: CursorKey }[]> {
  const engine = analyticsEngine();
  const scope: Scope = { workspace, window };
  const rows = await engine.run(searchSql(engine.dialect, { kind, scope, filter, order: "asc", after, limit }), scope);
  const time = kind === "logs" || kind === "span_evaluations" ? "timestamp" : "start_time";
  return rows.map((row) => ({ record: decode(kind, row), key: { time: String(row[time]), id: String(row.page_id) } }));
}

export interface Aggregated {
  data: { time_bucket: string | null; dimensions: Record<string, unknown>; metric_name: string; metric_value: number | null }[];
  meta: { from_timestamp: string; to_timestamp: string; granularity_seconds: number | null };
}

/** `auto`: the finest granularity that keeps the window under about 200 buckets. */
export function autoGranularity(window: Window): Granularity {
  const seconds = (Date.parse(window.to) - Date.parse(window.from)) / 1000;
  const wanted = seconds / 200;
  return (["second", "minute", "hour", "day", "week"] as const).find((g) => granularitySeconds[g] >= wanted) ?? "month";
}

function fieldRef(kind: TelemetryKind, text: string, param: string): FieldRef {
  return parsed(() => {
    try {
      return parseFieldRef(kind, text);
    } catch (error) {
      if (error instanceof ExpressionError) throw observabilityError(422, `${param}: ${error.problem}`, "SEARCH_BAD_REQUEST", param);
      throw error;
    }
  });
}

/** One metric over the caller's records, grouped by dimensions and time buckets. */
export async function aggregateTelemetry(workspace: string, kind: TelemetryKind, window_: { from?: string; to?: string }, body: AggregationBody, options: { signal?: AbortSignal } = {}): Promise<Aggregated> {
  const window = windowOf(window_);
  const filter: Filter | undefined = parsed(() => parseExpression(kind, body.search_expression));
  const { aggregation } = body.metric;
  const measure = body.metric.measure === "*" && aggregation === "count" ? undefined : fieldRef(kind, body.metric.measure, "metric.measure");
  if (measure) {
    const supported: Aggregation[] = measure.key !== undefined ? ["count", "count_distinct"] : measure.field.supported_aggregations;
    if (!supported.includes(aggregation)) {
      throw observabilityError(422, `metric.aggregation: '${aggregation}' is not supported on field '${measure.field.name}' (${measure.field.type}); supported: ${supported.join(", ")}`, "SEARCH_BAD_REQUEST", "metric");
    }
  }
  const dimensions = body.dimensions.map((name) => {
    const ref = fieldRef(kind, name, "dimensions");
    if (ref.field.type === "MAP" && ref.key === undefined) throw observabilityError(422, `dimensions: map field '${name}' needs a key, e.g. ${name}['key']`, "SEARCH_BAD_REQUEST", "dimensions");
    if (ref.field.type === "TEXT" && /messages|instructions|definitions|arguments|result|body|explanation/.test(ref.field.name)) {
      throw observabilityError(422, `dimensions: '${name}' is free text, not a dimension`, "SEARCH_BAD_REQUEST", "dimensions");
    }
    return ref;
  });
  const granularity = body.time_dimension ? (body.time_dimension.granularity === "auto" ? autoGranularity(window) : body.time_dimension.granularity) : undefined;
  const metricName = `${aggregation}(${body.metric.measure})`;
  const orderBy = (body.order_by ?? []).map(({ field, direction }) => {
    if (field === "time_bucket" && granularity) return { target: "time_bucket" as const, direction };
    if (field === "metric_value" || field === metricName || field === body.metric.measure) return { target: "metric_value" as const, direction };
    const index = body.dimensions.indexOf(field);
    if (index < 0) throw observabilityError(422, `order_by: '${field}' is neither a dimension, the metric nor time_bucket`, "SEARCH_BAD_REQUEST", "order_by");
    return { target: index, direction };
  });
  const engine = analyticsEngine();
  const scope: Scope = { workspace, window };
  const sql = aggregateSql(engine.dialect, { kind, scope, filter, measure, aggregation, dimensions, granularity, orderBy, limit: body.limit });
  const rows = await engine.run(sql, scope, options);
  return {
    data: rows.map((row) => ({
      time_bucket: granularity ? String(row.time_bucket) : null,
      dimensions: Object.fromEntries(body.dimensions.map((name, i) => [name, dimensionValue(dimensions[i]!, row[`d${i}`] ?? null)])),
      metric_name: metricName,
      metric_value: row.metric_value === null || row.metric_value === undefined ? null : Number(row.metric_value),
    })),
    meta: { from_timestamp: window.from, to_timestamp: window.to, granularity_seconds: granularity ? granularitySeconds[granularity] : null },
  };
}

function dimensionValue(ref: FieldRef, value: string | number | null): unknown {
  if (value === null) return null;
  if (ref.key === undefined && (ref.field.storage === "int" || ref.field.storage === "float")) return Number(value);
  if (ref.key === undefined && ref.field.storage === "strings") return JSON.parse(String(value));
  return String(value);
}

/** The field catalogue of a kind, as the `/fields` routes answer it. */
export const fieldsOf = (kind: TelemetryKind): { field_definitions: FieldDefinition[] } => ({ field_definitions: fieldDefinitions(kind) });

/** The distinct values of an enum-like field seen in the caller's records of the window. */
export async function fieldOptions(workspace: string, kind: TelemetryKind, name: string, window_: { from?: string; to?: string }): Promise<{ options: string[] }> {
  const field = fieldOf(kind, name);
  if (!field) throw observabilityError(404, `No field '${name}' in the ${kind.replace("_", " ")} field definitions`, "FIELDS_NOT_FOUND");
  if (!field.enumLike) throw observabilityError(400, `Field '${name}' is ${field.type}: options are listed for ENUM fields only`, "FIELDS_BAD_REQUEST");
  const window = windowOf(window_);
  const engine = analyticsEngine();
  const scope: Scope = { workspace, window };
  const rows = await engine.run(optionsSql(engine.dialect, kind, scope, field), scope);
  return { options: rows.map((row) => String(row.value)) };
}
