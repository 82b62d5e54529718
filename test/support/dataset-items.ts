import { randomUUID } from "node:crypto";
import type { Caller } from "../../shared/domain/caller.js";
import type { Dataset, DatasetRecord } from "../../shared/domain/observability/datasets.js";
import type { SpanRow } from "../../shared/domain/observability/records.js";

/** A dataset of `caller`'s workspace. */
export const aDataset = (caller: Pick<Caller, "workspace" | "principal">, overrides: Partial<Dataset> = {}): Dataset => ({
  workspace: caller.workspace,
  id: randomUUID(),
  name: "support answers",
  description: "Conversations to judge",
  ownerId: caller.principal,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  ...overrides,
});

/** A record of `dataset` typed in directly, a two-turn conversation. */
export const aRecord = (dataset: Pick<Dataset, "workspace" | "id">, overrides: Partial<DatasetRecord> = {}): DatasetRecord => ({
  workspace: dataset.workspace,
  id: randomUUID(),
  datasetId: dataset.id,
  createdAt: "2025-01-02T00:00:00.000Z",
  updatedAt: "2025-01-02T00:00:00.000Z",
  payload: { messages: [{ role: "user", content: "What is the capital of France?" }, { role: "assistant", content: "Paris." }] },
  properties: { topic: "geography" },
  source: "DIRECT_INPUT",
  ...overrides,
});

/** A dataset as the datasets table holds it. */
export const aDatasetItem = (dataset: Dataset): Record<string, unknown> => ({
  ...dataset,
  pk: `WS#${dataset.workspace}`,
  sk: `DS#${dataset.id}`,
  parentKey: `${dataset.workspace}#DATASETS`,
  createdKey: `${dataset.createdAt}#${dataset.id}`,
});

/** A record as the datasets table holds it (payload and properties as JSON text). */
export const aRecordItem = ({ payload, properties, ...record }: DatasetRecord): Record<string, unknown> => ({
  ...record,
  payloadJson: JSON.stringify(payload),
  propertiesJson: JSON.stringify(properties),
  pk: `WS#${record.workspace}`,
  sk: `REC#${record.id}`,
  parentKey: `${record.workspace}#DS#${record.datasetId}`,
  createdKey: `${record.createdAt}#${record.id}`,
});

const hex = (bytes: number) => randomUUID().replaceAll("-", "").slice(0, bytes * 2).padEnd(bytes * 2, "0");

/**
 * A chat span of `caller`'s workspace with captured messages in the GenAI JSON form (docs/observability.md):
 * a system instruction, a user question and the model's answer.
 */
export function aChatSpan(caller: Pick<Caller, "workspace" | "organization" | "principal">, overrides: Partial<SpanRow> = {}): SpanRow {
  return {
    customer_id: caller.organization,
    organization_id: caller.organization,
    workspace_id: caller.workspace,
    user_id: caller.principal,
    trace_id: hex(16),
    span_id: hex(8),
    parent_span_id: "",
    trace_state: "",
    start_time: "2025-03-01T10:00:00.000000Z",
    end_time: "2025-03-01T10:00:01.000000Z",
    duration_ns: 1_000_000_000,
    span_name: "chat mistral-small-latest",
    span_kind: "Client",
    service_name: "platform",
    status_code: "Unset",
    status_message: "",
    error_type: "",
    operation_name: "chat",
    provider_name: "mistral_ai",
    request_model: "mistral-small-latest",
    response_model: "mistral-small-latest",
    response_id: "cmpl-1",
    output_type: "text",
    conversation_id: "conv-1",
    data_source_id: "",
    agent_id: "",
    agent_name: "",
    agent_version: "",
    agent_description: "",
    workflow_name: "",
    prompt_name: "",
    tool_name: "",
    tool_type: "",
    tool_call_id: "",
    input_messages: JSON.stringify([{ role: "user", parts: [{ type: "text", content: "What is the capital of France?" }] }]),
    output_messages: JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Paris." }], finish_reason: "stop" }]),
    system_instructions: JSON.stringify([{ type: "text", content: "Answer in one word." }]),
    tool_definitions: "",
    tool_call_arguments: "",
    tool_call_result: "",
    request_choice_count: 1,
    request_max_tokens: 0,
    request_temperature: null,
    request_top_p: null,
    request_top_k: null,
    request_presence_penalty: null,
    request_frequency_penalty: null,
    request_seed: 0,
    request_stop_sequences: [],
    request_encoding_formats: [],
    response_finish_reasons: ["stop"],
    usage_input_tokens: 12,
    usage_output_tokens: 2,
    usage_cache_read_input_tokens: 0,
    usage_cache_creation_input_tokens: 0,
    resource_attributes: {},
    span_attributes: {},
    scope_name: "platform",
    scope_version: "1",
    ...overrides,
  };
}

/** A span as the telemetry table's point store holds it (shared/store/observability/spans.ts): the span item and its pointer. */
export const aSpanItems = (span: SpanRow): Record<string, unknown>[] => {
  const sk = `SPAN#${span.start_time}#${span.span_id}`;
  return [
    { pk: `TRACE#${span.workspace_id}#${span.trace_id}`, sk, ttl: 4_102_444_800, span },
    { pk: `SPAN#${span.workspace_id}#${span.trace_id}#${span.span_id}`, sk: "SPAN", ttl: 4_102_444_800, at: sk },
  ];
};
