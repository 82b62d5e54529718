import type { Caller } from "../caller.js";
import { emptySpan } from "./genai.js";
import { OTLP_BOUNDS, itemTooDeep } from "./otlp-bounds.js";
import type { LogRow, SpanRow } from "./records.js";
import { isoFromNanos } from "./traces.js";

/**
 * OTLP (OpenTelemetry protocol) export requests mapped to the rows the platform stores
 * (docs/observability/ingest.md). The input is the OTLP/JSON form (lowerCamelCase fields, hex ids, integer
 * enums, 64-bit numbers as strings or numbers); protobuf requests are decoded into the same form first.
 * Every row belongs to the caller's workspace, whatever its attributes claim. Items that cannot be stored
 * (bad ids, times) are counted as rejected with a reason, as OTLP's partial success reports them.
 */

export interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
}
export interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface Resource {
  attributes?: KeyValue[];
}
interface Scope {
  name?: string;
  version?: string;
  attributes?: KeyValue[];
}
export interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  traceState?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number | string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  attributes?: KeyValue[];
  status?: { code?: number | string; message?: string };
  /** Why the decoder could not keep this span (shared/domain/observability/otlp-bounds.ts): it is rejected with that reason. */
  unreadable?: string;
}
export interface ExportTraceRequest {
  resourceSpans?: { resource?: Resource; schemaUrl?: string; scopeSpans?: { scope?: Scope; schemaUrl?: string; spans?: OtlpSpan[] }[] }[];
}
export interface OtlpLogRecord {
  timeUnixNano?: string | number;
  observedTimeUnixNano?: string | number;
  severityNumber?: number | string;
  severityText?: string;
  body?: AnyValue;
  attributes?: KeyValue[];
  flags?: number;
  traceId?: string;
  spanId?: string;
  eventName?: string;
  /** Why the decoder could not keep this record: it is rejected with that reason. */
  unreadable?: string;
}
export interface ExportLogsRequest {
  resourceLogs?: { resource?: Resource; schemaUrl?: string; scopeLogs?: { scope?: Scope; schemaUrl?: string; logRecords?: OtlpLogRecord[] }[] }[];
}

export interface Mapped<R> {
  rows: R[];
  rejected: number;
  /** The first reasons items were rejected, for `partial_success.error_message`. */
  errors: string[];
}

type Owner = Pick<Caller, "organization" | "workspace" | "principal">;

/** An attribute value as the rows keep attributes: strings as they are, everything else as JSON. */
export function attributeText(value: AnyValue | undefined): string {
  const plain = plainValue(value);
  return typeof plain === "string" ? plain : JSON.stringify(plain ?? null);
}

/** A value nested past the bound: the decoders refuse such items first; this keeps the walk bounded whoever calls it. */
class TooDeep extends Error {}

function plainValue(value: AnyValue | undefined, depth = 1): unknown {
  if (!value) return null;
  if (depth > OTLP_BOUNDS.depth) throw new TooDeep(itemTooDeep);
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return listOf(value.arrayValue.values).map((item) => plainValue(item, depth + 1));
  // A key-value list becomes a JSON object: keys are data, so define them (a key named __proto__ stays a key).
  if (value.kvlistValue) return Object.fromEntries(listOf(value.kvlistValue.values).filter((kv) => typeof kv?.key === "string").map((kv) => [kv.key, plainValue(kv.value, depth + 1)]));
  if (value.bytesValue !== undefined) return value.bytesValue;
  return null;
}

const listOf = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);

const attributeMap = (attributes: KeyValue[] | undefined): Map<string, AnyValue | undefined> => new Map(listOf(attributes).filter((kv) => typeof kv?.key === "string").map((kv) => [kv.key, kv.value]));
const textMap = (attributes: Map<string, AnyValue | undefined>): Record<string, string> => Object.fromEntries([...attributes].map(([key, value]) => [key, attributeText(value)]));

const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;
const zero = (id: string) => /^0+$/.test(id);

/** The end of year 9999 in nanoseconds: later times have no ISO 8601 form the rows keep (26-digit values were a 500). */
const MAX_NANOS = 253_402_300_800_000_000_000n;

/** duration_ns is a number the stores keep exactly: at most 2^53 - 1 ns. */
const MAX_DURATION_NS = BigInt(Number.MAX_SAFE_INTEGER);

function nanos(value: string | number | undefined): bigint | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  try {
    const n = BigInt(typeof value === "number" ? Math.trunc(value) : value);
    return n > 0n && n < MAX_NANOS ? n : undefined;
  } catch {
    return undefined;
  }
}

const SPAN_KINDS = ["Unspecified", "Internal", "Server", "Client", "Producer", "Consumer"];
function spanKind(kind: number | string | undefined): string {
  if (typeof kind === "number") return SPAN_KINDS[kind] ?? "Unspecified";
  const name = String(kind ?? "").replace(/^SPAN_KIND_/, "").toLowerCase();
  return SPAN_KINDS.find((k) => k.toLowerCase() === name) ?? "Unspecified";
}

function statusCode(code: number | string | undefined): SpanRow["status_code"] {
  if (code === 2 || code === "STATUS_CODE_ERROR") return "Error";
  if (code === 1 || code === "STATUS_CODE_OK") return "Ok";
  return "Unset";
}

/** GenAI attributes that have their own span column (they leave span_attributes then). */
const STRING_COLUMNS: Record<string, keyof SpanRow> = {
  "gen_ai.operation.name": "operation_name",
  "gen_ai.provider.name": "provider_name",
  "gen_ai.system": "provider_name",
  "gen_ai.request.model": "request_model",
  "gen_ai.response.model": "response_model",
  "gen_ai.response.id": "response_id",
  "gen_ai.output.type": "output_type",
  "gen_ai.conversation.id": "conversation_id",
  "gen_ai.data_source.id": "data_source_id",
  "gen_ai.agent.id": "agent_id",
  "gen_ai.agent.name": "agent_name",
  "gen_ai.agent.version": "agent_version",
  "gen_ai.agent.description": "agent_description",
  "gen_ai.workflow.name": "workflow_name",
  "gen_ai.prompt.name": "prompt_name",
  "gen_ai.tool.name": "tool_name",
  "gen_ai.tool.type": "tool_type",
  "gen_ai.tool.call.id": "tool_call_id",
  "gen_ai.input.messages": "input_messages",
  "gen_ai.output.messages": "output_messages",
  "gen_ai.system_instructions": "system_instructions",
  "gen_ai.tool.definitions": "tool_definitions",
  "gen_ai.tool.call.arguments": "tool_call_arguments",
  "gen_ai.tool.call.result": "tool_call_result",
  "error.type": "error_type",
};
const INT_COLUMNS: Record<string, keyof SpanRow> = {
  "gen_ai.request.choice.count": "request_choice_count",
  "gen_ai.request.max_tokens": "request_max_tokens",
  "gen_ai.request.seed": "request_seed",
  "gen_ai.usage.input_tokens": "usage_input_tokens",
  "gen_ai.usage.output_tokens": "usage_output_tokens",
  "gen_ai.usage.cache_read.input_tokens": "usage_cache_read_input_tokens",
  "gen_ai.usage.cache_read_input_tokens": "usage_cache_read_input_tokens",
  "gen_ai.usage.cache_creation.input_tokens": "usage_cache_creation_input_tokens",
  "gen_ai.usage.cache_creation_input_tokens": "usage_cache_creation_input_tokens",
};
const NUMBER_COLUMNS: Record<string, keyof SpanRow> = {
  "gen_ai.request.temperature": "request_temperature",
  "gen_ai.request.top_p": "request_top_p",
  "gen_ai.request.top_k": "request_top_k",
  "gen_ai.request.presence_penalty": "request_presence_penalty",
  "gen_ai.request.frequency_penalty": "request_frequency_penalty",
};
const LIST_COLUMNS: Record<string, keyof SpanRow> = {
  "gen_ai.request.stop_sequences": "request_stop_sequences",
  "gen_ai.request.encoding_formats": "request_encoding_formats",
  "gen_ai.response.finish_reasons": "response_finish_reasons",
};

function asList(value: AnyValue | undefined): string[] {
  const plain = plainValue(value);
  if (Array.isArray(plain)) return plain.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
  if (typeof plain === "string") {
    try {
      const parsed: unknown = JSON.parse(plain);
      if (Array.isArray(parsed)) return parsed.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
    } catch {
      // a single value
    }
    return [plain];
  }
  return plain === null ? [] : [JSON.stringify(plain)];
}

function asNumber(value: AnyValue | undefined): number | undefined {
  const plain = plainValue(value);
  const n = typeof plain === "number" ? plain : typeof plain === "string" && plain.trim() !== "" ? Number(plain) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** DynamoDB keeps numbers of magnitude 1e-130 to 1e126 (and 0). */
const storableDouble = (n: number) => n === 0 || (Math.abs(n) > 1e-130 && Math.abs(n) < 1e125);

/** The column an attribute key has: own keys of the tables only (`constructor`, `__proto__` are attributes like any other). */
const columnIn = (table: Record<string, keyof SpanRow>, key: string): keyof SpanRow | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);

/** The span column an OTel attribute of this name is kept in, if it has one of its own (`gen_ai.input.messages` → `input_messages`). */
export const spanColumnOf = (attribute: string): keyof SpanRow | undefined => columnIn(STRING_COLUMNS, attribute);

/** The GenAI attributes moved into their columns; the rest stay in span_attributes. */
function applyAttributes(row: SpanRow, attributes: Map<string, AnyValue | undefined>): void {
  const rest = new Map(attributes);
  for (const [key, value] of attributes) {
    const column = columnIn(STRING_COLUMNS, key) ?? columnIn(INT_COLUMNS, key) ?? columnIn(NUMBER_COLUMNS, key) ?? columnIn(LIST_COLUMNS, key);
    if (!column) continue;
    if (columnIn(STRING_COLUMNS, key)) (row as unknown as Record<string, unknown>)[column] = attributeText(value);
    else if (columnIn(LIST_COLUMNS, key)) (row as unknown as Record<string, unknown>)[column] = asList(value);
    else {
      const n = asNumber(value);
      const int = columnIn(INT_COLUMNS, key) !== undefined;
      // A number the stores cannot keep exactly (an integer past 2^53, a double past DynamoDB's range) stays an attribute.
      if (n === undefined || (int ? !Number.isSafeInteger(Math.trunc(n)) : !storableDouble(n))) continue;
      (row as unknown as Record<string, unknown>)[column] = int ? Math.trunc(n) : n;
    }
    rest.delete(key);
  }
  row.span_attributes = textMap(rest);
}

/** How many reasons `error_message` names (the count covers them all). */
const MAX_ERRORS = 5;

/** Mapped rows, and a way to count a rejected item with its reason. */
function collector<R>(): { out: Mapped<R>; reject: (why: string) => void } {
  const out: Mapped<R> = { rows: [], rejected: 0, errors: [] };
  return {
    out,
    reject: (why) => {
      out.rejected += 1;
      if (out.errors.length < MAX_ERRORS) out.errors.push(why);
    },
  };
}

/** Why an item failed while it was mapped (a value past the bounds, a time with no date): its rejection's reason. */
const failure = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Each resource's items, with the resource's attributes read once; a resource that cannot be read rejects its items. */
function eachResource<T>(resources: T[] | undefined, read: (resource: T) => void, items: (resource: T) => number, reject: (why: string) => void): void {
  for (const resource of listOf(resources)) {
    try {
      read(resource);
    } catch (error) {
      for (let i = items(resource); i > 0; i -= 1) reject(`resource attributes: ${failure(error)}`);
    }
  }
}

const countItems = <S, I>(scopes: S[] | undefined, itemsOf: (scope: S) => I[] | undefined) => listOf(scopes).reduce((n, scope) => n + listOf(itemsOf(scope)).length, 0);

export function spansFromOtlp(request: ExportTraceRequest, owner: Owner): Mapped<SpanRow> {
  const { out, reject } = collector<SpanRow>();
  type ResourceSpans = NonNullable<ExportTraceRequest["resourceSpans"]>[number];
  const read = (resourceSpans: ResourceSpans) => {
    const resource = attributeMap(resourceSpans?.resource?.attributes);
    const resourceAttributes = textMap(resource);
    const service = resource.has("service.name") ? attributeText(resource.get("service.name")) : "";
    for (const scopeSpans of listOf(resourceSpans?.scopeSpans)) {
      for (const span of listOf(scopeSpans?.spans)) {
        const traceId = String(span?.traceId ?? "").toLowerCase();
        const spanId = String(span?.spanId ?? "").toLowerCase();
        const parent = String(span?.parentSpanId ?? "").toLowerCase();
        const start = nanos(span?.startTimeUnixNano);
        const end = nanos(span?.endTimeUnixNano);
        if (typeof span?.unreadable === "string") reject(`span '${spanId.slice(0, 32)}': ${span.unreadable}`);
        else if (!HEX_TRACE.test(traceId) || zero(traceId)) reject(`span '${spanId.slice(0, 32)}': traceId must be 32 hex digits, not all zero`);
        else if (!HEX_SPAN.test(spanId) || zero(spanId)) reject(`span of trace ${traceId}: spanId must be 16 hex digits, not all zero`);
        else if (parent !== "" && !HEX_SPAN.test(parent)) reject(`span ${spanId}: parentSpanId must be empty or 16 hex digits`);
        else if (start === undefined || end === undefined || end < start) reject(`span ${spanId}: startTimeUnixNano and endTimeUnixNano must be positive times before the year 10000, the end not before the start`);
        else if (end - start > MAX_DURATION_NS) reject(`span ${spanId}: a span may last at most 2^53 ns (104 days)`);
        else {
          try {
            const row = emptySpan({ trace_id: traceId, span_id: spanId, workspace_id: owner.workspace, organization_id: owner.organization });
            applyAttributes(row, attributeMap(span.attributes));
            Object.assign(row, {
              customer_id: owner.organization,
              user_id: owner.principal,
              parent_span_id: zero(parent) ? "" : parent,
              trace_state: String(span.traceState ?? "").slice(0, 512),
              start_time: isoFromNanos(start),
              end_time: isoFromNanos(end),
              duration_ns: Number(end - start),
              span_name: String(span.name ?? ""),
              span_kind: spanKind(span.kind),
              service_name: service,
              status_code: statusCode(span.status?.code),
              status_message: String(span.status?.message ?? ""),
              resource_attributes: resourceAttributes,
              scope_name: String(scopeSpans.scope?.name ?? ""),
              scope_version: String(scopeSpans.scope?.version ?? ""),
            } satisfies Partial<SpanRow>);
            out.rows.push(row);
          } catch (error) {
            reject(`span ${spanId}: ${failure(error)}`);
          }
        }
      }
    }
  };
  // Resource attributes are read before any of its spans is kept: a failure there rejects them all, none twice.
  eachResource(request.resourceSpans, read, (r) => countItems(r?.scopeSpans, (s) => s?.spans), reject);
  return out;
}

export function logsFromOtlp(request: ExportLogsRequest, owner: Owner): Mapped<LogRow> {
  const { out, reject } = collector<LogRow>();
  type ResourceLogs = NonNullable<ExportLogsRequest["resourceLogs"]>[number];
  const read = (resourceLogs: ResourceLogs) => {
    const resource = attributeMap(resourceLogs?.resource?.attributes);
    const resourceAttributes = textMap(resource);
    const service = resource.has("service.name") ? attributeText(resource.get("service.name")) : "";
    for (const scopeLogs of listOf(resourceLogs?.scopeLogs)) {
      let scopeAttributes: Record<string, string>;
      try {
        scopeAttributes = textMap(attributeMap(scopeLogs?.scope?.attributes));
      } catch (error) {
        for (const _ of listOf(scopeLogs?.logRecords)) reject(`scope attributes: ${failure(error)}`);
        continue;
      }
      for (const record of listOf(scopeLogs?.logRecords)) {
        const traceId = String(record?.traceId ?? "").toLowerCase();
        const spanId = String(record?.spanId ?? "").toLowerCase();
        const time = nanos(record?.timeUnixNano) ?? nanos(record?.observedTimeUnixNano);
        if (typeof record?.unreadable === "string") reject(`log record: ${record.unreadable}`);
        else if (traceId !== "" && !HEX_TRACE.test(traceId)) reject("log record: traceId must be empty or 32 hex digits");
        else if (spanId !== "" && !HEX_SPAN.test(spanId)) reject("log record: spanId must be empty or 16 hex digits");
        else if (time === undefined) reject("log record: timeUnixNano or observedTimeUnixNano must be a positive time before the year 10000");
        else {
          try {
            out.rows.push({
              customer_id: owner.organization,
              organization_id: owner.organization,
              workspace_id: owner.workspace,
              user_id: owner.principal,
              timestamp: isoFromNanos(time),
              trace_id: zero(traceId) ? "" : traceId,
              span_id: zero(spanId) ? "" : spanId,
              trace_flags: Number(record.flags ?? 0) & 0xff,
              severity_text: String(record.severityText ?? ""),
              severity_number: Number(typeof record.severityNumber === "number" ? record.severityNumber : 0),
              service_name: service,
              body: record.body ? attributeText(record.body) : "",
              event_name: String(record.eventName ?? ""),
              resource_schema_url: String(resourceLogs.schemaUrl ?? ""),
              resource_attributes: resourceAttributes,
              scope_schema_url: String(scopeLogs.schemaUrl ?? ""),
              scope_name: String(scopeLogs.scope?.name ?? ""),
              scope_version: String(scopeLogs.scope?.version ?? ""),
              scope_attributes: scopeAttributes,
              log_attributes: textMap(attributeMap(record.attributes)),
            });
          } catch (error) {
            reject(`log record: ${failure(error)}`);
          }
        }
      }
    }
  };
  eachResource(request.resourceLogs, read, (r) => countItems(r?.scopeLogs, (s) => s?.logRecords), reject);
  return out;
}

const KIND_NUMBERS: Record<string, number> = Object.fromEntries(SPAN_KINDS.map((kind, i) => [kind, i]));
const STATUS_NUMBERS: Record<SpanRow["status_code"], number> = { Unset: 0, Ok: 1, Error: 2 };

/** The span's columns back as OTLP attributes (the GenAI names), then its other attributes. */
function attributesOf(row: SpanRow): KeyValue[] {
  const out: KeyValue[] = [];
  const seen = new Set<string>();
  const add = (key: string, value: AnyValue) => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ key, value });
  };
  for (const [key, column] of Object.entries(STRING_COLUMNS)) {
    const value = row[column];
    if (typeof value === "string" && value !== "" && key !== "gen_ai.system") add(key, { stringValue: value });
  }
  for (const [key, column] of Object.entries(INT_COLUMNS)) {
    const value = row[column];
    if (typeof value === "number" && value !== 0 && !key.includes("_input_tokens")) add(key, { intValue: String(value) });
  }
  for (const [key, column] of Object.entries(NUMBER_COLUMNS)) {
    const value = row[column];
    if (typeof value === "number") add(key, { doubleValue: value });
  }
  for (const [key, column] of Object.entries(LIST_COLUMNS)) {
    const value = row[column];
    if (Array.isArray(value) && value.length) add(key, { arrayValue: { values: value.map((v) => ({ stringValue: String(v) })) } });
  }
  for (const [key, value] of Object.entries(row.span_attributes)) add(key, { stringValue: value });
  return out;
}

const nanosText = (iso: string): string => {
  const match = /^(.*?)(?:\.(\d+))?Z$/.exec(iso);
  const whole = BigInt(Date.parse(`${match?.[1] ?? iso}Z`));
  return String(whole * 1_000_000n + BigInt((match?.[2] ?? "").padEnd(9, "0").slice(0, 9)));
};

/**
 * Spans as OTLP resource spans (OTLP/JSON, hex ids, the span kind by its enum name as Tempo writes it), one
 * batch per resource and scope: the form of Tempo's trace answer that `GET /v1/workflows/executions/{id}/trace/otel` gives as `otel_trace_data.batches`.
 */
export function otlpFromSpans(rows: readonly SpanRow[]): NonNullable<ExportTraceRequest["resourceSpans"]> {
  const batches = new Map<string, { resource: Resource; scopes: Map<string, { scope: Scope; spans: OtlpSpan[] }> }>();
  for (const row of rows) {
    const resourceKey = JSON.stringify([row.service_name, row.resource_attributes]);
    const attributes = { ...row.resource_attributes, ...(row.service_name ? { "service.name": row.service_name } : {}) };
    const batch = batches.get(resourceKey) ?? { resource: { attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })) }, scopes: new Map() };
    batches.set(resourceKey, batch);
    const scopeKey = `${row.scope_name}\u0000${row.scope_version}`;
    const scope = batch.scopes.get(scopeKey) ?? { scope: { name: row.scope_name, version: row.scope_version }, spans: [] };
    batch.scopes.set(scopeKey, scope);
    scope.spans.push({
      traceId: row.trace_id,
      spanId: row.span_id,
      ...(row.parent_span_id ? { parentSpanId: row.parent_span_id } : {}),
      ...(row.trace_state ? { traceState: row.trace_state } : {}),
      name: row.span_name,
      kind: `SPAN_KIND_${(KIND_NUMBERS[row.span_kind] === undefined ? "Unspecified" : row.span_kind).toUpperCase()}`,
      startTimeUnixNano: nanosText(row.start_time),
      endTimeUnixNano: nanosText(row.end_time),
      attributes: attributesOf(row),
      status: { code: STATUS_NUMBERS[row.status_code], ...(row.status_message ? { message: row.status_message } : {}) },
    });
  }
  return [...batches.values()].map((batch) => ({ resource: batch.resource, scopeSpans: [...batch.scopes.values()].map((s) => ({ scope: s.scope, spans: s.spans })) }));
}
