import * as z from "zod";

/**
 * A monthly load for the cost model (`npm run cost -- --load load.json`, docs/cost.md). Every section but
 * `requests` is optional; every count is per month. Unknown fields are refused, so a misspelt one is said,
 * not silently priced at 0.
 */
const count = z.number().finite().nonnegative();
const positive = z.number().finite().positive();
const ratio = z.number().min(0).max(1);

/** What one family's requests do; what is not given comes from `defaults`, the route table, or the model's own defaults. */
export const FamilyLoad = z.strictObject({
  requests: count,
  /** Average billed duration of one invocation, in milliseconds. */
  avg_ms: positive.optional(),
  /** Overrides the memory the route table gives the family's functions. */
  memory_mb: z.number().int().min(128).max(10_240).optional(),
  /** Average answer size, in KB (data out to the client). */
  response_kb: count.optional(),
  dynamodb_reads: count.optional(),
  dynamodb_writes: count.optional(),
  s3_puts: count.optional(),
  s3_gets: count.optional(),
  kms_requests: count.optional(),
  /** Log written per invocation by the function (structured lines plus Lambda's START/END/REPORT), in KB. */
  log_kb: count.optional(),
});
export type FamilyLoad = z.infer<typeof FamilyLoad>;

/** Per-request values for every family that does not give its own. */
export const RequestDefaults = FamilyLoad.pick({ avg_ms: true, response_kb: true, dynamodb_reads: true, dynamodb_writes: true, log_kb: true }).extend({
  /** API Gateway's access log line per request, in KB. */
  access_log_kb: count.optional(),
});

export const CostLoad = z.strictObject({
  $comment: z.string().optional(),
  /** Requests per operation family: an area of the route table (`inference`, `files`, …) or one route (`POST /v1/audio/transcriptions`). Empty: no API traffic (a month at rest, `--idle`). */
  requests: z.record(z.string(), FamilyLoad),
  defaults: RequestDefaults.optional(),
  /** The REQUEST authorizer: the share of keyed requests API Gateway answers from its cache, and one invocation's duration. */
  authorizer: z.strictObject({ cache_hit_ratio: ratio.optional(), avg_ms: positive.optional() }).optional(),
  /** Tokens through the model providers, per model id of config/prices.json. */
  /** `cached_input_tokens`: of the input tokens, those read from the upstream's prompt cache (priced at `cached_input_per_million`). */
  models: z.record(z.string(), z.strictObject({ input_tokens: count, cached_input_tokens: count.optional(), output_tokens: count.optional() })).optional(),
  storage: z
    .strictObject({
      /** Files bucket, current versions. */
      s3_gb: count.optional(),
      /** Files bucket, deleted or replaced versions kept for the versioning window. */
      s3_noncurrent_gb: count.optional(),
      /** All tables together. */
      dynamodb_gb: count.optional(),
      /** Downloads straight from S3 (presigned URLs), to the internet. */
      s3_downloaded_gb: count.optional(),
    })
    .optional(),
  batch: z.strictObject({ jobs: count, lines: count, ms_per_line: positive.optional() }).optional(),
  workflows: z
    .strictObject({
      executions: count,
      /** State transitions of all workflow executions (Standard machines). */
      state_transitions: count,
      /** Task states run (each one invokes the dispatcher). */
      tasks: count.optional(),
      task_ms: positive.optional(),
    })
    .optional(),
  schedules: z.strictObject({ fires: count.optional(), timers_fired: count.optional() }).optional(),
  observability: z
    .strictObject({
      spans_ingested: count,
      span_bytes: positive.optional(),
      spans_per_object: positive.optional(),
      retention_days: positive.optional(),
      queries: count.optional(),
      gb_scanned_per_query: count.optional(),
      point_records: count.optional(),
    })
    .optional(),
  /** The audit log (docs/decisions/0044-audit-log.md): privileged changes a month, the size of an event, how long events are kept. */
  audit: z.strictObject({ events: count, event_bytes: positive.optional(), retention_days: positive.optional() }).optional(),
  /**
   * Document libraries (docs/libraries.md, docs/vector-search.md): documents ingested (one Standard execution of the
   * ingestion machine each), their pages and chunks, the share of pages read by Textract, the vectors kept in S3 Vectors
   * and the document_library searches made of them. Their API requests (uploads, the conversations that search) are
   * families of `requests`, their embedding tokens a model of `models`.
   */
  libraries: z
    .strictObject({
      /** Documents ingested a month (uploaded, replaced or reprocessed). */
      documents: count,
      pages_per_document: positive.optional(),
      chunks_per_page: positive.optional(),
      /** Of the pages, those with no text layer (scans, images) that Textract's DetectDocumentText reads. */
      ocr_page_share: ratio.optional(),
      /** The embedding model's dimension (float32 values: 4 bytes each). */
      vector_dimension: z.number().int().positive().max(4096).optional(),
      /** Documents whose vectors the bucket holds (all libraries): storage, and the data each query processes. */
      documents_stored: count.optional(),
      /** Libraries (one index each) the stored documents are spread over: a query processes one library's index. */
      libraries: positive.optional(),
      /** Searches of libraries (the document_library tool, the search route) a month. */
      queries: count.optional(),
      /** Libraries one search names: one QueryVectors call each. */
      libraries_per_query: positive.optional(),
      /** The ingestion Run's time per page (extract, chunk, embed, put), in milliseconds. */
      run_ms_per_page: positive.optional(),
    })
    .optional(),
  /**
   * Pages read by `POST /v1/ocr` and OCR batch lines (docs/ocr.md) with the cloud catalog's OCR model, Textract's
   * DetectDocumentText (a Mistral OCR upstream bills as a model instead). Their requests are a family of `requests`.
   */
  ocr: z.strictObject({ pages: count }).optional(),
  /** SDK uploads through CloudFront and the upload service (not API Gateway). */
  uploads: z.strictObject({ files: count, gb: count }).optional(),
  /**
   * Realtime transcription (docs/audio.md "Realtime"): WebSocket sessions through CloudFront to the upload service,
   * each streaming its audio to Amazon Transcribe for `avg_minutes`.
   */
  realtime: z.strictObject({ sessions: count, avg_minutes: positive }).optional(),
  /**
   * The web console (docs/console.md): `page_loads` a month, each the HTML entry (`GET /console`, from the API) and,
   * for the `cold_share` of loads whose browser does not hold this release's hashed assets yet (a first visit, the
   * first load after a release), the script and stylesheet: from S3 through CloudFront, or from the API without it.
   * `releases_stored`: the releases the assets bucket keeps (the deployment does not prune). The API calls its pages
   * make are requests of the families they call (`usage`, `users`, `files`, …), given in `requests` as any client's.
   */
  console: z.strictObject({ page_loads: count, cold_share: ratio.optional(), releases_stored: positive.optional() }).optional(),
  notifications: z.strictObject({ alarm_emails: count.optional() }).optional(),
  /** Whether the CloudFront distribution (and the upload service behind it) is deployed: on by default. */
  cloudfront: z.boolean().optional(),
});
export type CostLoad = z.infer<typeof CostLoad>;
