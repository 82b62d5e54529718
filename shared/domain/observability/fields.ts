/**
 * The field catalogues of the searchable kinds: what the `/fields` routes answer and the only names the
 * search expression, the dimensions and the metrics may use. Each field says its API type, the operators
 * and aggregations the engine really runs for that type (shared/domain/observability/query.ts), and how it
 * is stored (the JSON-lines columns DuckDB and the Glue tables read).
 */
import type { TelemetryKind } from "./records.js";

export const fieldTypes = ["ENUM", "TEXT", "INT", "FLOAT", "BOOL", "TIMESTAMP", "ARRAY", "MAP"] as const;
export type FieldType = (typeof fieldTypes)[number];

export const operators = [
  "eq", "neq", "lt", "lte", "gt", "gte", "like", "ilike", "not_like", "not_ilike", "between", "not_between",
  "in", "not_in", "exists", "not_exists", "regexp", "not_regexp", "contains", "not_contains", "has", "hasAny", "hasAll", "hasToken",
] as const;
export type Operator = (typeof operators)[number];

export const aggregations = ["count", "count_distinct", "sum", "avg", "min", "max", "p50", "p90", "p95", "p99"] as const;
export type Aggregation = (typeof aggregations)[number];

/** How a column is kept in the JSON lines (and declared to DuckDB and Glue). */
export type Storage = "string" | "int" | "float" | "strings" | "map";

export interface FieldDefinition {
  name: string;
  label: string;
  type: FieldType;
  group: string | null;
  supported_operators: Operator[];
  supported_aggregations: Aggregation[];
}

export interface Field extends FieldDefinition {
  storage: Storage;
  /** Distinct values are worth listing (the `/options` routes). */
  enumLike: boolean;
}

const STRING_OPS: Operator[] = ["eq", "neq", "in", "not_in", "like", "ilike", "not_like", "not_ilike", "regexp", "not_regexp", "contains", "not_contains", "exists", "not_exists"];
const NUMBER_OPS: Operator[] = ["eq", "neq", "lt", "lte", "gt", "gte", "between", "not_between", "in", "not_in", "exists", "not_exists"];
const OPERATORS: Record<FieldType, Operator[]> = {
  ENUM: STRING_OPS,
  TEXT: [...STRING_OPS, "hasToken"],
  INT: NUMBER_OPS,
  FLOAT: NUMBER_OPS,
  BOOL: ["eq", "neq", "exists", "not_exists"],
  TIMESTAMP: ["eq", "neq", "lt", "lte", "gt", "gte", "between", "not_between", "exists", "not_exists"],
  ARRAY: ["has", "hasAny", "hasAll", "exists", "not_exists"],
  // A map's operators apply to one key's value (`attributes['key'] = 'x'`); exists also to the map itself.
  MAP: STRING_OPS,
};
const AGGREGATIONS: Record<FieldType, Aggregation[]> = {
  ENUM: ["count", "count_distinct"],
  TEXT: ["count", "count_distinct"],
  INT: [...aggregations],
  FLOAT: [...aggregations],
  BOOL: ["count", "count_distinct"],
  TIMESTAMP: ["count", "count_distinct"],
  ARRAY: ["count"],
  MAP: ["count"],
};
const STORAGE: Record<FieldType, Storage> = { ENUM: "string", TEXT: "string", INT: "int", FLOAT: "float", BOOL: "string", TIMESTAMP: "string", ARRAY: "strings", MAP: "map" };

type Spec = [name: string, type: FieldType, group: string, label?: string];

const label = (name: string) => name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()).replace(/\bns\b/, "(ns)").replace(/\bid\b/gi, "ID");

function catalogue(specs: Spec[]): Field[] {
  return specs.map(([name, type, group, given]) => ({
    name,
    label: given ?? label(name),
    type,
    group,
    supported_operators: OPERATORS[type],
    supported_aggregations: AGGREGATIONS[type],
    storage: STORAGE[type],
    enumLike: type === "ENUM",
  }));
}

const OWNER: Spec[] = [
  ["customer_id", "TEXT", "owner"],
  ["organization_id", "TEXT", "owner"],
  ["workspace_id", "TEXT", "owner"],
  ["user_id", "TEXT", "owner"],
];

const SPAN_FIELDS: Spec[] = [
  ...OWNER,
  ["trace_id", "TEXT", "identity"],
  ["span_id", "TEXT", "identity"],
  ["parent_span_id", "TEXT", "identity"],
  ["trace_state", "TEXT", "identity"],
  ["start_time", "TIMESTAMP", "timing"],
  ["end_time", "TIMESTAMP", "timing"],
  ["duration_ns", "INT", "timing", "Duration (ns)"],
  ["span_name", "ENUM", "span"],
  ["span_kind", "ENUM", "span"],
  ["service_name", "ENUM", "span"],
  ["status_code", "ENUM", "status"],
  ["status_message", "TEXT", "status"],
  ["error_type", "ENUM", "status"],
  ["operation_name", "ENUM", "gen_ai"],
  ["provider_name", "ENUM", "gen_ai"],
  ["request_model", "ENUM", "gen_ai"],
  ["response_model", "ENUM", "gen_ai"],
  ["response_id", "TEXT", "gen_ai"],
  ["output_type", "ENUM", "gen_ai"],
  ["conversation_id", "TEXT", "gen_ai"],
  ["data_source_id", "TEXT", "gen_ai"],
  ["agent_id", "ENUM", "agent"],
  ["agent_name", "ENUM", "agent"],
  ["agent_version", "ENUM", "agent"],
  ["agent_description", "TEXT", "agent"],
  ["workflow_name", "ENUM", "agent"],
  ["prompt_name", "ENUM", "agent"],
  ["tool_name", "ENUM", "tool"],
  ["tool_type", "ENUM", "tool"],
  ["tool_call_id", "TEXT", "tool"],
  ["input_messages", "TEXT", "content"],
  ["output_messages", "TEXT", "content"],
  ["system_instructions", "TEXT", "content"],
  ["tool_definitions", "TEXT", "content"],
  ["tool_call_arguments", "TEXT", "content"],
  ["tool_call_result", "TEXT", "content"],
  ["request_choice_count", "INT", "request"],
  ["request_max_tokens", "INT", "request"],
  ["request_temperature", "FLOAT", "request"],
  ["request_top_p", "FLOAT", "request"],
  ["request_top_k", "FLOAT", "request"],
  ["request_presence_penalty", "FLOAT", "request"],
  ["request_frequency_penalty", "FLOAT", "request"],
  ["request_seed", "INT", "request"],
  ["request_stop_sequences", "ARRAY", "request"],
  ["request_encoding_formats", "ARRAY", "request"],
  ["response_finish_reasons", "ARRAY", "gen_ai"],
  ["usage_input_tokens", "INT", "usage"],
  ["usage_output_tokens", "INT", "usage"],
  ["usage_cache_read_input_tokens", "INT", "usage"],
  ["usage_cache_creation_input_tokens", "INT", "usage"],
  ["resource_attributes", "MAP", "attributes"],
  ["span_attributes", "MAP", "attributes"],
  ["scope_name", "ENUM", "scope"],
  ["scope_version", "ENUM", "scope"],
];

const TRACE_FIELDS: Spec[] = [
  ...OWNER,
  ["trace_id", "TEXT", "identity"],
  ["root_span_id", "TEXT", "identity"],
  ["root_span_name", "ENUM", "identity"],
  ["start_time", "TIMESTAMP", "timing"],
  ["end_time", "TIMESTAMP", "timing"],
  ["duration_ns", "INT", "timing", "Duration (ns)"],
  ["service_name", "ENUM", "trace"],
  ["environment", "ENUM", "trace"],
  ["conversation_id", "TEXT", "gen_ai"],
  ["workflow_name", "ENUM", "agent"],
  ["agent_id", "ENUM", "agent"],
  ["agent_name", "ENUM", "agent"],
  ["status_code", "ENUM", "status"],
  ["error_count", "INT", "status"],
  ["span_count", "INT", "counts"],
  ["gen_ai_span_count", "INT", "counts", "GenAI span count"],
  ["llm_call_count", "INT", "counts", "LLM call count"],
  ["tool_call_count", "INT", "counts"],
  ["retrieval_count", "INT", "counts"],
  ["evaluation_count", "INT", "counts"],
  ["input_tokens", "INT", "usage"],
  ["output_tokens", "INT", "usage"],
  ["cache_read_input_tokens", "INT", "usage"],
  ["cache_creation_input_tokens", "INT", "usage"],
  ["models_used", "ARRAY", "gen_ai"],
  ["tools_used", "ARRAY", "tool"],
  ["first_turn_last_input_message", "TEXT", "content"],
  ["first_turn_last_output_message", "TEXT", "content"],
  ["last_turn_last_input_message", "TEXT", "content"],
  ["last_turn_last_output_message", "TEXT", "content"],
];

const LOG_FIELDS: Spec[] = [
  ...OWNER,
  ["timestamp", "TIMESTAMP", "timing"],
  ["trace_id", "TEXT", "identity"],
  ["span_id", "TEXT", "identity"],
  ["trace_flags", "INT", "identity"],
  ["severity_text", "ENUM", "severity"],
  ["severity_number", "INT", "severity"],
  ["service_name", "ENUM", "log"],
  ["body", "TEXT", "log"],
  ["event_name", "ENUM", "log"],
  ["resource_schema_url", "TEXT", "resource"],
  ["resource_attributes", "MAP", "attributes"],
  ["scope_schema_url", "TEXT", "scope"],
  ["scope_name", "ENUM", "scope"],
  ["scope_version", "ENUM", "scope"],
  ["scope_attributes", "MAP", "attributes"],
  ["log_attributes", "MAP", "attributes"],
];

const EVALUATION_FIELDS: Spec[] = [
  ...OWNER,
  ["trace_id", "TEXT", "identity"],
  ["span_id", "TEXT", "identity"],
  ["response_id", "TEXT", "identity"],
  ["conversation_id", "TEXT", "identity"],
  ["timestamp", "TIMESTAMP", "timing"],
  ["evaluation_name", "ENUM", "evaluation"],
  ["score_value", "FLOAT", "evaluation"],
  ["score_label", "ENUM", "evaluation"],
  ["explanation", "TEXT", "evaluation"],
  ["metadata", "MAP", "attributes"],
];

export const fieldCatalogues: Record<TelemetryKind, Field[]> = {
  spans: catalogue(SPAN_FIELDS),
  traces: catalogue(TRACE_FIELDS),
  logs: catalogue(LOG_FIELDS),
  span_evaluations: catalogue(EVALUATION_FIELDS),
};

const byName = Object.fromEntries(
  Object.entries(fieldCatalogues).map(([kind, fields]) => [kind, new Map(fields.map((f) => [f.name, f]))]),
) as Record<TelemetryKind, Map<string, Field>>;

/** A field of a kind's catalogue by its exact name, or undefined (names never reach SQL otherwise). */
export const fieldOf = (kind: TelemetryKind, name: string): Field | undefined => byName[kind].get(name);

/** What the `/fields` routes answer: the catalogue without the storage details. */
export const fieldDefinitions = (kind: TelemetryKind): FieldDefinition[] =>
  fieldCatalogues[kind].map(({ name, label, type, group, supported_operators, supported_aggregations }) => ({ name, label, type, group, supported_operators, supported_aggregations }));

/** The instant column a kind is filed, windowed and paged by. */
export const timeField = (kind: TelemetryKind): string => (kind === "spans" || kind === "traces" ? "start_time" : "timestamp");
