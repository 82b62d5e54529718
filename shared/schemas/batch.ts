import * as z from "zod";
import { queryBoolean, queryInt, repeated } from "./query.js";
import { Uuid } from "./common.js";

export const BatchStatus = z.enum(["QUEUED", "RUNNING", "SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLATION_REQUESTED", "CANCELLED"]);
export type BatchStatus = z.infer<typeof BatchStatus>;

/** The endpoints a batch job can run (the OpenAPI lists more; these are the ones this API serves). */
/** Our spec's four, and the ones of Mistral's list whose synchronous routes we serve (classifiers, OCR). */
export const BatchEndpoint = z.enum([
  "/v1/chat/completions",
  "/v1/embeddings",
  "/v1/fim/completions",
  "/v1/moderations",
  "/v1/chat/moderations",
  "/v1/classifications",
  "/v1/chat/classifications",
  "/v1/ocr",
  "/v1/conversations",
]);
export type BatchEndpoint = z.infer<typeof BatchEndpoint>;

export const MAX_INLINE_REQUESTS = 10_000;

export const BatchRequest = z.strictObject({
  custom_id: z.string().min(1).max(512).nullish(),
  body: z.record(z.string(), z.unknown()),
});

export const CreateBatchJobRequest = z.strictObject({
  input_files: z.array(Uuid).min(1).nullish(),
  requests: z.array(BatchRequest).min(1).max(MAX_INLINE_REQUESTS - 1).nullish(),
  endpoint: BatchEndpoint,
  model: z.string().min(1).nullish(),
  agent_id: z.string().min(1).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  timeout_hours: z.number().int().min(1).max(168).default(24),
});
export type CreateBatchJobRequest = z.infer<typeof CreateBatchJobRequest>;

export const BatchJobOut = z.object({
  id: z.string(),
  object: z.literal("batch"),
  input_files: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  endpoint: z.string(),
  model: z.string().nullable(),
  agent_id: z.string().nullable(),
  output_file: z.string().nullable(),
  error_file: z.string().nullable(),
  errors: z.array(z.object({ message: z.string(), count: z.number().int() })),
  outputs: z.array(z.record(z.string(), z.unknown())).nullable(),
  status: BatchStatus,
  created_at: z.number().int(),
  total_requests: z.number().int(),
  completed_requests: z.number().int(),
  succeeded_requests: z.number().int(),
  failed_requests: z.number().int(),
  started_at: z.number().int().nullable(),
  completed_at: z.number().int().nullable(),
});
export type BatchJobOut = z.infer<typeof BatchJobOut>;

export const BatchJobParams = z.object({ job_id: Uuid });

export const BatchJobQuery = z.object({ inline: queryBoolean(false) });

/** GET /v1/batch/jobs. The SDK sends `metadata` exploded as bare `key=value` pairs: the list handler collects them. */
export const BatchJobListQuery = z.looseObject({
  page: queryInt().min(0).default(0),
  page_size: queryInt().min(1).max(1000).default(100),
  model: z.string().optional(),
  agent_id: z.string().optional(),
  created_after: z.iso.datetime({ offset: true }).optional(),
  created_by_me: queryBoolean(false),
  status: repeated(BatchStatus),
  order_by: z.enum(["created", "-created"]).default("-created"),
});
