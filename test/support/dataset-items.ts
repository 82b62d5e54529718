import { randomUUID } from "node:crypto";
import type { Caller } from "../../shared/domain/caller.js";
import type { Dataset, DatasetRecord } from "../../shared/domain/observability/datasets.js";
import type { SpanRow } from "../../shared/domain/observability/records.js";
import { aSpanRow } from "./telemetry-rows.js";

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


/**
 * A chat span of `caller`'s workspace with captured messages in the GenAI JSON form (docs/observability.md):
 * a system instruction, a user question and the model's answer.
 */
export function aChatSpan(caller: Pick<Caller, "workspace" | "organization" | "principal">, overrides: Partial<SpanRow> = {}): SpanRow {
  return aSpanRow(caller.workspace, {
    customer_id: caller.organization,
    organization_id: caller.organization,
    user_id: caller.principal,
    start_time: "2025-03-01T10:00:00.000000Z",
    end_time: "2025-03-01T10:00:01.000000Z",
    duration_ns: 1_000_000_000,
    span_kind: "Client",
    service_name: "platform",
    status_code: "Unset",
    response_id: "cmpl-1",
    conversation_id: "conv-1",
    input_messages: JSON.stringify([{ role: "user", parts: [{ type: "text", content: "What is the capital of France?" }] }]),
    output_messages: JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Paris." }], finish_reason: "stop" }]),
    system_instructions: JSON.stringify([{ type: "text", content: "Answer in one word." }]),
    request_temperature: null,
    usage_input_tokens: 12,
    usage_output_tokens: 2,
    resource_attributes: {},
    span_attributes: {},
    ...overrides,
  });
}

