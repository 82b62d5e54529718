/**
 * Observability datasets and dataset records (docs/observability/datasets.md): field names, bounds and
 * defaults are the OpenAPI's (CreateDatasetRequest, UpdateDatasetRequest, Dataset, DatasetPreview,
 * CreateDatasetRecordRequest, DatasetRecord, DeleteDatasetRecordsRequest, JudgeDatasetRecordRequest,
 * JudgeOutput, ListDatasetsResponse, ListDatasetRecordsResponse), plus the spec's `TELEMETRY_SPAN` source and
 * the records-from-spans extension. Bodies accept unknown fields and drop them, as the OpenAPI's are open.
 */
import * as z from "zod";
import { Uuid } from "../common.js";

export const DatasetRecordSource = z.enum(["EXPLORER", "UPLOADED_FILE", "DIRECT_INPUT", "PLAYGROUND", "TELEMETRY_SPAN"]);
export type DatasetRecordSource = z.infer<typeof DatasetRecordSource>;

/** A free-form JSON object (payload, properties): an object, never an array or a scalar. */
const JsonObject = z.record(z.string(), z.unknown());

export const DatasetParams = z.object({ dataset_id: Uuid });
export const DatasetRecordParams = z.object({ dataset_record_id: Uuid });

export const CreateDatasetBody = z.object({
  name: z.string().min(5).max(50),
  description: z.string().max(200),
});
export type CreateDatasetBody = z.infer<typeof CreateDatasetBody>;

/** PATCH: the fields given change; null or absent leaves one as it is (a dataset always has both). */
export const UpdateDatasetBody = z.object({
  name: CreateDatasetBody.shape.name.nullish(),
  description: CreateDatasetBody.shape.description.nullish(),
});
export type UpdateDatasetBody = z.infer<typeof UpdateDatasetBody>;

/** The OpenAPI's page-number paging: page from 1, page_size 0..100 (0 answers the count alone). */
const paging = {
  page: z.coerce.number<string>().int().min(1).default(1),
  page_size: z.coerce.number<string>().int().min(0).max(100).default(50),
};
export const DatasetListQuery = z.object({ ...paging, q: z.string().max(200).optional() });
export type DatasetListQuery = z.infer<typeof DatasetListQuery>;
export const RecordListQuery = z.object(paging);
export type RecordListQuery = z.infer<typeof RecordListQuery>;

export const CreateRecordBody = z.object({ payload: JsonObject, properties: JsonObject.default({}) });
export type CreateRecordBody = z.infer<typeof CreateRecordBody>;

export const PayloadBody = z.object({ payload: JsonObject });
export const PropertiesBody = z.object({ properties: JsonObject });

export const BulkDeleteBody = z.object({ dataset_record_ids: z.array(Uuid).min(1).max(500) });

/** The most spans one records-from-spans call takes: they and the dataset's check fit one DynamoDB transaction. */
export const MAX_SPANS_PER_IMPORT = 50;

export const SpanReference = z.object({ trace_id: z.string().regex(/^[0-9a-fA-F]{32}$/, "trace_id is 32 hex digits"), span_id: z.string().regex(/^[0-9a-fA-F]{16}$/, "span_id is 16 hex digits") });
export const RecordsFromSpansBody = z.object({ spans: z.array(SpanReference).min(1).max(MAX_SPANS_PER_IMPORT) });
export type RecordsFromSpansBody = z.infer<typeof RecordsFromSpansBody>;

/** What datasets and records both answer: the id and the three instants (`deleted_at` null: deletes are hard). */
const resource = { id: z.string(), created_at: z.string(), updated_at: z.string(), deleted_at: z.string().nullable() };

export const DatasetOut = z.object({
  ...resource,
  name: z.string(),
  description: z.string(),
  owner_id: z.string(),
  workspace_id: z.string(),
});
export type DatasetOut = z.infer<typeof DatasetOut>;

export const DatasetRecordOut = z.object({
  ...resource,
  dataset_id: z.string(),
  payload: JsonObject,
  properties: JsonObject,
  source: DatasetRecordSource,
});
export type DatasetRecordOut = z.infer<typeof DatasetRecordOut>;

const page = <T extends z.ZodType>(item: T) => z.object({ results: z.array(item), count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable() });
export const DatasetListOut = z.object({ datasets: page(DatasetOut) });
export type DatasetListOut = z.infer<typeof DatasetListOut>;
export const RecordListOut = z.object({ records: page(DatasetRecordOut) });
export type RecordListOut = z.infer<typeof RecordListOut>;
export const RecordsFromSpansOut = z.object({ records: z.array(DatasetRecordOut) });

export const JudgeClassificationOutput = z.object({
  type: z.literal("CLASSIFICATION"),
  options: z.array(z.object({ value: z.string().min(1).max(200), description: z.string().max(1000) })).min(1).max(50),
});
export const JudgeRegressionOutput = z.object({
  type: z.literal("REGRESSION"),
  min: z.number().min(0).default(0),
  min_description: z.string().max(1000),
  max: z.number().lt(1e9).default(1),
  max_description: z.string().max(1000),
});
export const JudgeDefinition = z.object({
  name: z.string().min(5).max(50),
  description: z.string().max(500),
  model_name: z.string().min(1).max(500),
  output: z.discriminatedUnion("type", [JudgeClassificationOutput, JudgeRegressionOutput]),
  instructions: z.string().max(10_000),
  tools: z.array(z.string().max(200)).max(20),
});
export type JudgeDefinition = z.infer<typeof JudgeDefinition>;
export const JudgeBody = z.object({ judge_definition: JudgeDefinition });
export type JudgeBody = z.infer<typeof JudgeBody>;

export const JudgeOut = z.object({ analysis: z.string(), answer: z.union([z.string(), z.number()]) });
export type JudgeOut = z.infer<typeof JudgeOut>;
