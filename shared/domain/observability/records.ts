/**
 * The telemetry records the platform stores and searches (spec "Observability (beta)"; the field lists are
 * the GetSpan, GetTrace, GetLog and GetSpanEvaluation shapes of reference/mistral-openapi.yaml). One row
 * type per searchable kind: writers fill them, the analytical store keeps them as JSON lines partitioned by
 * workspace and day, and the routes answer them as they are.
 *
 * Timestamps are ISO-8601 strings in UTC with microseconds where the source had them; ids are lower-case
 * hex (trace 32, span 16). Absent strings are "", absent numbers 0, as the API shows them (all fields are
 * required there), except the request_* sampling numbers that the API types as number|null.
 */

export const telemetryKinds = ["spans", "traces", "logs", "span_evaluations"] as const;
export type TelemetryKind = (typeof telemetryKinds)[number];

/** Who a record belongs to: every row carries it, and every query is confined to one workspace. */
export interface TelemetryOwner {
  customer_id: string;
  organization_id: string;
  workspace_id: string;
  user_id: string;
}

export interface SpanRow extends TelemetryOwner {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  trace_state: string;
  start_time: string;
  end_time: string;
  duration_ns: number;
  span_name: string;
  span_kind: string;
  service_name: string;
  status_code: "Error" | "Ok" | "Unset";
  status_message: string;
  error_type: string;
  operation_name: string;
  provider_name: string;
  request_model: string;
  response_model: string;
  response_id: string;
  output_type: string;
  conversation_id: string;
  data_source_id: string;
  agent_id: string;
  agent_name: string;
  agent_version: string;
  agent_description: string;
  workflow_name: string;
  prompt_name: string;
  tool_name: string;
  tool_type: string;
  tool_call_id: string;
  input_messages: string;
  output_messages: string;
  system_instructions: string;
  tool_definitions: string;
  tool_call_arguments: string;
  tool_call_result: string;
  request_choice_count: number;
  request_max_tokens: number;
  request_temperature: number | null;
  request_top_p: number | null;
  request_top_k: number | null;
  request_presence_penalty: number | null;
  request_frequency_penalty: number | null;
  request_seed: number;
  request_stop_sequences: string[];
  request_encoding_formats: string[];
  response_finish_reasons: string[];
  usage_input_tokens: number;
  usage_output_tokens: number;
  usage_cache_read_input_tokens: number;
  usage_cache_creation_input_tokens: number;
  resource_attributes: Record<string, string>;
  span_attributes: Record<string, string>;
  scope_name: string;
  scope_version: string;
}

export interface TraceRow extends TelemetryOwner {
  trace_id: string;
  root_span_id: string;
  root_span_name: string;
  start_time: string;
  end_time: string;
  duration_ns: number;
  service_name: string;
  environment: string;
  conversation_id: string;
  workflow_name: string;
  agent_id: string;
  agent_name: string;
  status_code: "Error" | "Unset";
  error_count: number;
  span_count: number;
  gen_ai_span_count: number;
  llm_call_count: number;
  tool_call_count: number;
  retrieval_count: number;
  evaluation_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  models_used: string[];
  tools_used: string[];
  first_turn_last_input_message: string;
  first_turn_last_output_message: string;
  last_turn_last_input_message: string;
  last_turn_last_output_message: string;
}

export interface LogRow extends TelemetryOwner {
  timestamp: string;
  trace_id: string;
  span_id: string;
  trace_flags: number;
  severity_text: string;
  severity_number: number;
  service_name: string;
  body: string;
  event_name: string;
  resource_schema_url: string;
  resource_attributes: Record<string, string>;
  scope_schema_url: string;
  scope_name: string;
  scope_version: string;
  scope_attributes: Record<string, string>;
  log_attributes: Record<string, string>;
}

export interface SpanEvaluationRow extends TelemetryOwner {
  trace_id: string;
  span_id: string;
  response_id: string;
  conversation_id: string;
  timestamp: string;
  evaluation_name: string;
  score_value: number;
  score_label: string;
  explanation: string;
  metadata: Record<string, string>;
}

export interface TelemetryRows {
  spans: SpanRow;
  traces: TraceRow;
  logs: LogRow;
  span_evaluations: SpanEvaluationRow;
}

/** The instant a row is filed under (its day partition) and searched by (`from`/`to`). */
export function rowTime<K extends TelemetryKind>(kind: K, row: TelemetryRows[K]): string {
  switch (kind) {
    case "spans":
    case "traces":
      return (row as SpanRow | TraceRow).start_time;
    default:
      return (row as LogRow | SpanEvaluationRow).timestamp;
  }
}

/**
 * Where rows live in the analytical store: `<kind>/workspace_id=<id>/dt=<YYYY-MM-DD>/…`, the Hive-style
 * layout that Athena's partition projection and DuckDB's `hive_partitioning` both read.
 */
export function partitionPrefix(kind: TelemetryKind, workspaceId: string, time: string): string {
  return `${kind}/workspace_id=${workspaceId}/dt=${time.slice(0, 10)}/`;
}

/**
 * The kinds writers append. Trace rows are not written: a trace is derived from its spans (and the count of
 * their evaluations) when it is read, by the query engine in SQL and by `traceFromSpans` for point reads,
 * so a trace is never stale while its spans still arrive.
 */
export type WrittenKind = Exclude<TelemetryKind, "traces">;
