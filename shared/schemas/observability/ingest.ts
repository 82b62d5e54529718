import * as z from "zod";
import { queryInt } from "../query.js";

/**
 * The point reads of traces and spans (GetTrace, GetSpans, GetSpan of the OpenAPI) and their parameters.
 * Every field the OpenAPI marks required is always present ("" and 0 where a span had nothing).
 */

/** OTLP ids: trace 32 and span 16 lower-case hex; anything else cannot name a stored trace or span. */
export const TraceParams = z.object({ trace_id: z.string().min(1).max(64) });
export const SpanParams = TraceParams.extend({ span_id: z.string().min(1).max(32) });

const Instant = z.iso.datetime({ offset: true, local: true, message: "Input should be a valid datetime" });

export const SpanWindowQuery = z.object({ from: Instant.nullish(), to: Instant.nullish() });
export const SpansQuery = SpanWindowQuery.extend({
  page_size: queryInt().min(0).max(100).default(50),
  cursor: z.string().max(2048).nullish(),
});
export type SpansQuery = z.output<typeof SpansQuery>;

const Owner = { customer_id: z.string(), organization_id: z.string(), workspace_id: z.string(), user_id: z.string() };
const nullableNumber = z.number().nullable();

export const SpanOut = z.object({
  ...Owner,
  trace_id: z.string(),
  span_id: z.string(),
  parent_span_id: z.string(),
  trace_state: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  duration_ns: z.number().int(),
  span_name: z.string(),
  span_kind: z.string(),
  service_name: z.string(),
  status_code: z.enum(["Error", "Ok", "Unset"]),
  status_message: z.string(),
  error_type: z.string(),
  operation_name: z.string(),
  provider_name: z.string(),
  request_model: z.string(),
  response_model: z.string(),
  response_id: z.string(),
  output_type: z.string(),
  conversation_id: z.string(),
  data_source_id: z.string(),
  agent_id: z.string(),
  agent_name: z.string(),
  agent_version: z.string(),
  agent_description: z.string(),
  workflow_name: z.string(),
  prompt_name: z.string(),
  tool_name: z.string(),
  tool_type: z.string(),
  tool_call_id: z.string(),
  input_messages: z.string(),
  output_messages: z.string(),
  system_instructions: z.string(),
  tool_definitions: z.string(),
  tool_call_arguments: z.string(),
  tool_call_result: z.string(),
  request_choice_count: z.number().int(),
  request_max_tokens: z.number().int(),
  request_temperature: nullableNumber,
  request_top_p: nullableNumber,
  request_top_k: nullableNumber,
  request_presence_penalty: nullableNumber,
  request_frequency_penalty: nullableNumber,
  request_seed: z.number().int(),
  request_stop_sequences: z.array(z.string()),
  request_encoding_formats: z.array(z.string()),
  response_finish_reasons: z.array(z.string()),
  usage_input_tokens: z.number().int(),
  usage_output_tokens: z.number().int(),
  usage_cache_read_input_tokens: z.number().int(),
  usage_cache_creation_input_tokens: z.number().int(),
  resource_attributes: z.record(z.string(), z.string()),
  span_attributes: z.record(z.string(), z.string()),
  scope_name: z.string(),
  scope_version: z.string(),
});

export const TraceOut = z.object({
  ...Owner,
  trace_id: z.string(),
  root_span_id: z.string(),
  root_span_name: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  duration_ns: z.number().int(),
  service_name: z.string(),
  environment: z.string(),
  conversation_id: z.string(),
  workflow_name: z.string(),
  agent_id: z.string(),
  agent_name: z.string(),
  status_code: z.enum(["Error", "Unset"]),
  error_count: z.number().int(),
  span_count: z.number().int(),
  gen_ai_span_count: z.number().int(),
  llm_call_count: z.number().int(),
  tool_call_count: z.number().int(),
  retrieval_count: z.number().int(),
  evaluation_count: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_read_input_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int(),
  models_used: z.array(z.string()),
  tools_used: z.array(z.string()),
  first_turn_last_input_message: z.string(),
  first_turn_last_output_message: z.string(),
  last_turn_last_input_message: z.string(),
  last_turn_last_output_message: z.string(),
});

export const SpansOut = z.object({ spans: z.object({ results: z.array(SpanOut), next: z.string().nullable(), cursor: z.string().nullable() }) });

/** OTLP's ExportTraceServiceResponse / ExportLogsServiceResponse in OTLP/JSON: empty on full success. */
export const ExportResponseOut = z.object({
  partialSuccess: z.object({ rejectedSpans: z.string().optional(), rejectedLogRecords: z.string().optional(), errorMessage: z.string() }).optional(),
});
