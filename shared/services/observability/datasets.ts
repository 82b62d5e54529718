/**
 * Datasets and dataset records (`/v1/observability/datasets…`, `/v1/observability/dataset-records…`;
 * docs/observability/datasets.md, decision 41): a workspace's datasets, their records made directly or from
 * spans, read, replaced and deleted by id.
 */
import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import {
  checkConversation,
  checkRecordSize,
  datasetNotFound,
  pageLinks,
  payloadOfSpan,
  recordFormatError,
  recordNotFound,
  spanNotFound,
  spanProperties,
  toDatasetOut,
  toRecordOut,
  type Dataset,
  type DatasetRecord,
} from "../../domain/observability/datasets.js";
import type {
  CreateDatasetBody,
  CreateRecordBody,
  DatasetListOut,
  DatasetListQuery,
  DatasetOut,
  DatasetRecordOut,
  RecordListOut,
  RecordListQuery,
  RecordsFromSpansBody,
  UpdateDatasetBody,
} from "../../schemas/observability/datasets.js";
import { datasetStore, recordStore } from "../../store/observability/datasets.js";
import { spanStore } from "../../store/observability/spans.js";

const now = () => new Date().toISOString();

async function datasetOf(caller: Caller, id: string): Promise<Dataset> {
  const dataset = await datasetStore.get(caller.workspace, id.toLowerCase());
  if (!dataset) throw datasetNotFound(id);
  return dataset;
}

/** The record, or 404 DATASET_RECORD_NOT_FOUND (another workspace's too). */
export async function recordOf(caller: Caller, id: string): Promise<DatasetRecord> {
  const record = await recordStore.get(caller.workspace, id.toLowerCase());
  if (!record) throw recordNotFound([id]);
  return record;
}

export async function createDataset(caller: Caller, body: CreateDatasetBody): Promise<DatasetOut> {
  const at = now();
  const dataset: Dataset = { workspace: caller.workspace, id: randomUUID(), name: body.name, description: body.description, ownerId: caller.principal, createdAt: at, updatedAt: at };
  await datasetStore.create(dataset);
  return toDatasetOut(dataset);
}

export async function listDatasets(caller: Caller, query: DatasetListQuery): Promise<DatasetListOut> {
  const { datasets, count } = await datasetStore.page(caller.workspace, (query.page - 1) * query.page_size, query.page_size, query.q || undefined);
  return { datasets: { results: datasets.map(toDatasetOut), count, ...pageLinks("/v1/observability/datasets", query.page, query.page_size, count, { q: query.q || undefined }) } };
}

export const getDataset = async (caller: Caller, id: string): Promise<DatasetOut> => toDatasetOut(await datasetOf(caller, id));

/** Fields given change; null or absent keep theirs. */
export async function updateDataset(caller: Caller, id: string, body: UpdateDatasetBody): Promise<DatasetOut> {
  const changes = { name: body.name ?? undefined, description: body.description ?? undefined };
  if (changes.name === undefined && changes.description === undefined) return getDataset(caller, id);
  const dataset = await datasetStore.update(caller.workspace, id.toLowerCase(), { ...changes, updatedAt: now() });
  if (!dataset) throw datasetNotFound(id);
  return toDatasetOut(dataset);
}

/** The dataset and every record of it. */
export async function deleteDataset(caller: Caller, id: string): Promise<void> {
  await datasetOf(caller, id);
  await datasetStore.remove(caller.workspace, id.toLowerCase());
}

async function created(caller: Caller, datasetId: string, records: DatasetRecord[]): Promise<DatasetRecordOut[]> {
  if (!(await recordStore.create(caller.workspace, datasetId.toLowerCase(), records))) throw datasetNotFound(datasetId);
  return records.map(toRecordOut);
}

const newRecord = (caller: Caller, datasetId: string, fields: Pick<DatasetRecord, "payload" | "properties" | "source" | "span">): DatasetRecord => {
  const at = now();
  return { workspace: caller.workspace, id: randomUUID(), datasetId: datasetId.toLowerCase(), createdAt: at, updatedAt: at, ...fields };
};

/** A record typed in (source DIRECT_INPUT): a conversation payload is checked first. */
export async function createRecord(caller: Caller, datasetId: string, body: CreateRecordBody): Promise<DatasetRecordOut> {
  checkConversation(body.payload);
  checkRecordSize(body.payload, body.properties);
  const [record] = await created(caller, datasetId, [newRecord(caller, datasetId, { payload: body.payload, properties: body.properties, source: "DIRECT_INPUT" })]);
  return record!;
}

export async function listRecords(caller: Caller, datasetId: string, query: RecordListQuery): Promise<RecordListOut> {
  await datasetOf(caller, datasetId);
  const { records, count } = await recordStore.page(caller.workspace, datasetId.toLowerCase(), (query.page - 1) * query.page_size, query.page_size);
  return { records: { results: records.map(toRecordOut), count, ...pageLinks(`/v1/observability/datasets/${datasetId}/records`, query.page, query.page_size, count) } };
}

/**
 * One record per span (source TELEMETRY_SPAN), its payload the span's conversation, all or none: every span
 * is read first (404 SPAN_NOT_FOUND naming the missing ones), a span without captured messages is refused
 * (422 DATASET_RECORD_FORMAT_ERROR), and the records are written in one transaction with the dataset's check.
 */
export async function recordsFromSpans(caller: Caller, datasetId: string, body: RecordsFromSpansBody): Promise<DatasetRecordOut[]> {
  await datasetOf(caller, datasetId);
  const refs = body.spans.map((s) => ({ trace_id: s.trace_id.toLowerCase(), span_id: s.span_id.toLowerCase() }));
  const spans = await Promise.all(refs.map((ref) => spanStore.get(caller.workspace, ref.trace_id, ref.span_id)));
  const missing = refs.filter((_, i) => !spans[i]);
  if (missing.length) throw spanNotFound(missing);
  const records = spans.map((span) => {
    const payload = payloadOfSpan(span!);
    if (!payload.messages.length) throw recordFormatError(`Span ${span!.span_id} of trace ${span!.trace_id} has no captured messages (content capture was off): there is no conversation to make a record of`);
    const properties = spanProperties(span!);
    checkRecordSize(payload, properties);
    return newRecord(caller, datasetId, {
      payload,
      properties,
      source: "TELEMETRY_SPAN",
      span: { traceId: span!.trace_id, spanId: span!.span_id, conversationId: span!.conversation_id, responseId: span!.response_id },
    });
  });
  return created(caller, datasetId, records);
}

export const getRecord = async (caller: Caller, id: string): Promise<DatasetRecordOut> => toRecordOut(await recordOf(caller, id));

export async function deleteRecord(caller: Caller, id: string): Promise<void> {
  if (!(await recordStore.remove(caller.workspace, id.toLowerCase()))) throw recordNotFound([id]);
}

/** All or nothing: an id that names no record of the workspace is a 404 naming every such id, and nothing is deleted. */
export async function bulkDeleteRecords(caller: Caller, ids: string[]): Promise<void> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const found = await recordStore.existing(caller.workspace, unique);
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw recordNotFound(missing);
  await recordStore.removeAll(caller.workspace, unique);
}

export async function replacePayload(caller: Caller, id: string, payload: Record<string, unknown>): Promise<void> {
  checkConversation(payload);
  const record = await recordOf(caller, id);
  checkRecordSize(payload, record.properties);
  if (!(await recordStore.update(caller.workspace, record.id, { payload, updatedAt: now() }))) throw recordNotFound([id]);
}

export async function replaceProperties(caller: Caller, id: string, properties: Record<string, unknown>): Promise<void> {
  const record = await recordOf(caller, id);
  checkRecordSize(record.payload, properties);
  if (!(await recordStore.update(caller.workspace, record.id, { properties, updatedAt: now() }))) throw recordNotFound([id]);
}
