/**
 * The cost model (docs/cost.md, decision 0036): a month of load, the stacks' resources as the route and engine
 * tables and the CDK code build them (infra/cost-resources.ts), and list prices (config/prices.json) give the
 * month's AWS bill, line by line. Pure: no I/O, no clock; the CLI is scripts/cost.ts.
 */
import { CHECKPOINT_EVERY, CHUNK_SIZE, REQUEST_CONCURRENCY } from "../batch-engine.js";
import { DEFAULT_CHUNK_SIZE } from "../libraries/text/chunks.js";
import { costMicros, MICROS_PER_UNIT, priceOf, type PriceList } from "../pricing.js";
import type { CostLoad, FamilyLoad } from "../../schemas/cost.js";
import { checkAwsPrices, priceQuantity, type AwsPrice, type AwsPriceKey, type AwsPriceList } from "./prices.js";

/** One route-table row as the cost model sees it. */
export interface RouteResource {
  /** "METHOD /path", as the route table keys it. */
  key: string;
  /** Its area (functions/routes.ts areaOf): the operation family. */
  family: string;
  memoryMb: number;
  /** Seals or opens connector secrets with the data stack's KMS key. */
  secrets: boolean;
}

/** The streaming upload service's size (ECS Fargate behind an Application Load Balancer, issue 18). */
export interface UploadServiceSize {
  /** Task CPU units: 1024 is one vCPU. */
  cpu: number;
  memoryMiB: number;
  desiredCount: number;
  architecture: "X86_64" | "ARM64";
  /** Public IPv4 addresses it holds (the load balancer's, one per subnet, and public tasks'). */
  publicIpv4: number;
  natGateways: number;
  /** The container image in ECR, as cdk deploy pushes it. */
  imageGb: number;
  /** Size of the S3 multipart parts it streams (one PUT each). */
  partMb: number;
  /** A CloudFront Function picks the origin per method (runs on every request through the distribution). */
  cloudFrontFunction: boolean;
  /** Its own alarms' metrics and dashboards (infra/operations.ts), there only with the distribution. */
  alarmMetrics: number;
  dashboards: number;
}

/** The web console's built assets (console/build.ts) and the functions that serve its entry and, without the distribution, its assets. */
export interface ConsoleResources {
  /** Files a release has (a script and a stylesheet): a cold page load fetches each. */
  files: number;
  /** A release's files as stored (uncompressed). */
  releaseMb: number;
  /** A cold load's assets as sent (compressed by CloudFront or the browser's Accept-Encoding). */
  firstLoadKb: number;
  /** `GET /console` and `GET /console/{asset}` functions' memory. */
  pageMemoryMb: number;
  assetMemoryMb: number;
}

/** What the stacks deploy that costs money, from the code (infra/cost-resources.ts; asserted against `cdk synth`). */
export interface StackResources {
  routes: RouteResource[];
  authorizerMemoryMb: number;
  batch: { startMb: number; runChunkMb: number; finishMb: number; stateMachine: "STANDARD"; logsExecutionData: boolean };
  /** The library ingestion machine (shared/engine/library-ingestion-machine.ts): Run per document, RecordFailure on a fault. */
  libraryIngestion: { runMb: number; stateMachine: "STANDARD"; logsExecutionData: boolean };
  workflows: {
    stateMachine: "STANDARD";
    dispatchMb: number;
    statusMb: number;
    timerMb: number;
    scheduleFireMb: number;
    /** Functions on a fixed rate (EventBridge scheduled rules): a cost with no load at all. */
    periodic: { name: string; memoryMb: number; everyMinutes: number }[];
  };
  tables: number;
  kmsKeys: number;
  /** Metrics the alarms evaluate: CloudWatch bills an alarm per metric it evaluates (a metric-math alarm over three metrics is three). */
  alarmMetrics: number;
  dashboards: number;
  /** Custom metrics the stacks publish (log metric filters, embedded metric format): billed for the hours they are published in, so only under load. */
  customMetrics: number;
  /** Months each kind of log group keeps its lines. */
  logRetentionMonths: { functions: number; accessLogs: number; stateMachines: number };
  upload: UploadServiceSize;
  console: ConsoleResources;
}

/**
 * What the model assumes where neither the load nor the stacks say (docs/cost.md lists each, with why). A load
 * overrides the per-request ones in `defaults` or per family.
 */
export const ASSUMED = {
  avgMs: 100,
  responseKb: 2,
  dynamodbReads: 2,
  dynamodbWrites: 1,
  logKb: 1,
  accessLogKb: 0.5,
  authorizerCacheHitRatio: 0.9,
  authorizerMs: 30,
  authorizerReads: 2,
  batchMsPerLine: 1000,
  /** Start and Finish of a job, each. */
  batchJobTaskMs: 2000,
  /** Transitions of a job's own states (Start, the Map, Finish, the end) and of each chunk's child execution. */
  batchTransitionsPerJob: 4,
  batchTransitionsPerChunk: 2,
  /** Per chunk: its input object written and read, its result object written and read. */
  batchS3PutsPerChunk: 2,
  batchS3GetsPerChunk: 2,
  /** Per line: the usage record and the month and day counters (docs/spend.md); results saved and counted every CHECKPOINT_EVERY lines. */
  batchWritesPerLine: 3 + 1 / CHECKPOINT_EVERY,
  batchS3PutsPerLine: 1 / CHECKPOINT_EVERY,
  /** Step Functions' execution log (level ALL with execution data) per transition. */
  stateMachineLogKb: 2,
  workflowTaskMs: 500,
  engineMs: 100,
  engineReads: 2,
  engineWrites: 2,
  periodicMs: 200,
  spanBytes: 1000,
  /** A span's point item keeps its content up to this (MAX_SPAN_ITEM_BYTES, decision 0045); the pointer item beside it is one unit more. */
  pointItemMaxBytes: 16_000,
  /** The telemetry writer puts one object per append (a model call's spans, an OTLP export's batch): few spans each. */
  spansPerObject: 10,
  spanRetentionDays: 30,
  /** An audit event's item: ids, actor, origin, targets and short before/after values (shared/domain/audit.ts). */
  auditEventBytes: 800,
  /** The audit log's default retention (shared/config.ts DEFAULT_AUDIT_RETENTION_DAYS). */
  auditRetentionDays: 400,
  gbScannedPerQuery: 0.1,
  libraryPagesPerDocument: 10,
  /** A page of ~3,000 characters in chunks of DEFAULT_CHUNK_SIZE (2,048) characters, with their overlap. */
  libraryChunksPerPage: 1.5,
  libraryOcrPageShare: 0.2,
  /** Titan Text Embeddings V2 and mistral-embed: 1,024 float32 values. */
  vectorDimension: 1024,
  /** A chunk's key (`<document id>#<index>`, shared/engine/vectors/store.ts chunkKey) and its filterable metadata (document id, index, time, name, type). */
  vectorKeyBytes: 45,
  vectorFilterableBytes: 150,
  /** The chunk's text, non-filterable metadata returned with each hit: a full chunk of the default size. */
  vectorTextBytes: DEFAULT_CHUNK_SIZE,
  librariesPerQuery: 1,
  /** The ingestion Run: reading the document and recording its status, then per page extracting, chunking, embedding (a model call) and putting. */
  ingestionRunMs: 1000,
  ingestionRunMsPerPage: 400,
  /** Run and the end; retries and RecordFailure (a fault) are not counted. */
  ingestionTransitionsPerDocument: 2,
  athenaMinMbPerQuery: 10,
  alarmEmails: 30,
  /** A realtime session's audio as the SDK streams it: 16 kHz, 16-bit mono PCM. */
  realtimeAudioBytesPerSecond: 16_000 * 2,
  /** Console page loads whose browser lacks the release's assets (a first visit, a cleared cache, the first load after a release); the rest use the browser's copy (immutable, a year). */
  consoleColdShare: 0.2,
  /** Console releases the assets bucket holds: the deployment keeps earlier releases' files for pages still open on them. */
  consoleReleasesStored: 20,
  /** The HTML entry as sent (about 0.5 KB, no-cache: every load). */
  consolePageKb: 1,
  consolePageMs: 50,
  consoleAssetMs: 20,
} as const;

export class CostLoadError extends Error {}

export interface CostLine {
  service: string;
  item: string;
  quantity: number;
  unit: string;
  usd: number;
  /** Paid whatever the load (a key, an alarm, the upload service's hours): does not scale with requests. */
  fixed: boolean;
  price: AwsPriceKey | "model";
}

export interface CostReport {
  region: string;
  /** API requests (the families'), not counting uploads, engine invocations or spans. */
  requests: number;
  lines: CostLine[];
  total: number;
  fixed: number;
}

interface Usage {
  service: string;
  item: string;
  price: AwsPriceKey;
  quantity: number;
  fixed?: boolean;
}

const GB = 1024 ** 3;
const KB_PER_GB = 1024 * 1024;

/** The rows a family key names: an area's (less those the load gives as routes of their own), or one route's. */
export function familyRows(key: string, resources: StackResources, givenRoutes: ReadonlySet<string> = new Set()): RouteResource[] {
  const route = resources.routes.find((r) => r.key === key);
  if (route) return [route];
  const rows = resources.routes.filter((r) => r.family === key);
  if (!rows.length) {
    const families = [...new Set(resources.routes.map((r) => r.family))].toSorted();
    throw new CostLoadError(`Unknown family "${key}": use an area of the route table (${families.join(", ")}) or one route as "METHOD /path" (npm run routes)`);
  }
  const rest = rows.filter((r) => !givenRoutes.has(r.key));
  return rest.length ? rest : rows;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** A family's function memory: the load's, or the route table's (one route's, or the mean of an area's rows: an even mix of its operations). */
export function familyMemory(key: string, family: Pick<FamilyLoad, "memory_mb">, resources: StackResources, givenRoutes?: ReadonlySet<string>): { memoryMb: number; from: string } {
  if (family.memory_mb) return { memoryMb: family.memory_mb, from: "load" };
  const rows = familyRows(key, resources, givenRoutes);
  const memoryMb = Math.round(mean(rows.map((r) => r.memoryMb)));
  return { memoryMb, from: rows.length === 1 ? "route table" : `route table, mean of ${rows.length} rows` };
}

/**
 * A month with no traffic at all (`npm run cost -- --idle`): what the deployment costs at rest, with
 * (`cloudfront: true`) or without the upload distribution. Only the stacks' fixed lines remain.
 */
export function idleLoad(cloudfront: boolean): CostLoad {
  return { requests: {}, cloudfront };
}

/** Scales every volume of the load (requests, tokens, storage, jobs, executions, spans, uploads, realtime sessions, console page loads) so that its requests add up to `requests`. */
export function scaleLoad(load: CostLoad, requests: number): CostLoad {
  const total = Object.values(load.requests).reduce((sum, f) => sum + f.requests, 0);
  if (total <= 0) throw new CostLoadError("The load has no requests to scale");
  const k = requests / total;
  const times = <T extends object>(section: T | undefined, keys: readonly (keyof T)[]): T | undefined =>
    section && { ...section, ...Object.fromEntries(keys.filter((key) => section[key] !== undefined).map((key) => [key, (section[key] as number) * k])) };
  return {
    ...load,
    requests: Object.fromEntries(Object.entries(load.requests).map(([key, f]) => [key, { ...f, requests: f.requests * k }])),
    models: load.models && Object.fromEntries(Object.entries(load.models).map(([id, t]) => [id, times(t, ["input_tokens", "cached_input_tokens", "output_tokens"])!])),
    storage: times(load.storage, ["s3_gb", "s3_noncurrent_gb", "dynamodb_gb", "s3_downloaded_gb"]),
    batch: times(load.batch, ["jobs", "lines"]),
    workflows: times(load.workflows, ["executions", "state_transitions", "tasks"]),
    schedules: times(load.schedules, ["fires", "timers_fired"]),
    observability: times(load.observability, ["spans_ingested", "queries", "point_records"]),
    audit: times(load.audit, ["events"]),
    uploads: times(load.uploads, ["files", "gb"]),
    // More sessions of the same length.
    realtime: times(load.realtime, ["sessions"]),
    ocr: times(load.ocr, ["pages"]),
    // More libraries of the same size, each searched as often: a query processes as much data as before.
    libraries: times(load.libraries, ["documents", "documents_stored", "libraries", "queries"]),
    // More page loads of the same console: its releases stored stay.
    console: times(load.console, ["page_loads"]),
  };
}

/**
 * The month's AWS cost of `load` on `resources` at `aws` list prices, and the models' tokens at `models` prices
 * (the same functions spend limits use: shared/domain/pricing.ts). Lines that share a tiered price (Lambda
 * GB-seconds, API Gateway requests, storage, transfer) are priced together and shared out in proportion.
 */
export function monthlyCost(load: CostLoad, resources: StackResources, aws: AwsPriceList, models: PriceList): CostReport {
  const prices = checkAwsPrices(aws);
  const hours = aws.hours_per_month;
  const minutes = hours * 60;
  const usage: Usage[] = [];
  const add = (service: string, item: string, price: AwsPriceKey, quantity: number, fixed = false) => {
    if (quantity > 0) usage.push({ service, item, price, quantity, fixed });
  };
  const defaults = load.defaults ?? {};
  const logKbDefault = defaults.log_kb ?? ASSUMED.logKb;
  let logKb = 0;
  let accessLogKb = 0;
  let machineLogKb = 0;
  let dynamoReads = 0;
  let dynamoWrites = 0;
  let s3Puts = 0;
  let s3Gets = 0;
  let kms = 0;
  let lambdaInvocations = 0;
  let periodicInvocations = 0;
  const invoke = (item: string, invocations: number, ms: number, memoryMb: number, fixed = false) => {
    add("Lambda", `${item} (${memoryMb} MB)`, "lambda_arm64_gb_seconds", (invocations * ms * memoryMb) / 1000 / 1024, fixed);
    if (fixed) periodicInvocations += invocations;
    else lambdaInvocations += invocations;
    logKb += invocations * logKbDefault;
  };

  // The console's page loads are its own section (below), not a family: given in both, they would be counted twice.
  const consoleFamily = Object.keys(load.requests).find((key) => key === "console" || resources.routes.find((r) => r.key === key)?.family === "console");
  if (load.console && consoleFamily) throw new CostLoadError(`"${consoleFamily}" in requests and the console section count the console's page loads twice: give them in the console section only`);

  // API requests, family by family: Lambda time at the route table's memory, DynamoDB, S3 and KMS calls per request.
  const givenRoutes = new Set(Object.keys(load.requests).filter((key) => resources.routes.some((r) => r.key === key)));
  let requests = 0;
  let responseGb = 0;
  for (const [key, family] of Object.entries(load.requests)) {
    const rows = familyRows(key, resources, givenRoutes);
    const { memoryMb } = familyMemory(key, family, resources, givenRoutes);
    const n = family.requests;
    requests += n;
    invoke(`${key} requests`, n, family.avg_ms ?? defaults.avg_ms ?? ASSUMED.avgMs, memoryMb);
    if (family.log_kb !== undefined) logKb += n * (family.log_kb - logKbDefault);
    responseGb += (n * (family.response_kb ?? defaults.response_kb ?? ASSUMED.responseKb)) / KB_PER_GB;
    dynamoReads += n * (family.dynamodb_reads ?? defaults.dynamodb_reads ?? ASSUMED.dynamodbReads);
    dynamoWrites += n * (family.dynamodb_writes ?? defaults.dynamodb_writes ?? ASSUMED.dynamodbWrites);
    s3Puts += n * (family.s3_puts ?? 0);
    s3Gets += n * (family.s3_gets ?? 0);
    // An even mix of the family's rows: the share that seals or opens connector secrets calls KMS once.
    kms += n * (family.kms_requests ?? rows.filter((r) => r.secrets).length / rows.length);
  }
  accessLogKb += requests * (defaults.access_log_kb ?? ASSUMED.accessLogKb);

  // Every request is keyed (docs/health and the OpenAPI document are few): the authorizer runs on cache misses.
  const missRatio = 1 - (load.authorizer?.cache_hit_ratio ?? ASSUMED.authorizerCacheHitRatio);
  const authorizerCalls = requests * missRatio;
  invoke("authorizer", authorizerCalls, load.authorizer?.avg_ms ?? ASSUMED.authorizerMs, resources.authorizerMemoryMb);
  dynamoReads += authorizerCalls * ASSUMED.authorizerReads;
  add("API Gateway", "REST API requests", "api_gateway_rest_requests", requests);

  // Batch: Start, a chunk per CHUNK_SIZE lines (REQUEST_CONCURRENCY model calls at once), Finish, on a Standard machine.
  if (load.batch && load.batch.jobs > 0) {
    const { jobs, lines } = load.batch;
    const chunks = Math.max(jobs, Math.ceil(lines / CHUNK_SIZE));
    const msPerLine = load.batch.ms_per_line ?? ASSUMED.batchMsPerLine;
    invoke("batch: start and finish", jobs * 2, ASSUMED.batchJobTaskMs, Math.max(resources.batch.startMb, resources.batch.finishMb));
    invoke("batch: chunks", chunks, (Math.min(lines / chunks, CHUNK_SIZE) * msPerLine) / REQUEST_CONCURRENCY, resources.batch.runChunkMb);
    const transitions = jobs * ASSUMED.batchTransitionsPerJob + chunks * ASSUMED.batchTransitionsPerChunk;
    add("Step Functions", "batch machine transitions (Standard)", "step_functions_standard_transitions", transitions);
    if (resources.batch.logsExecutionData) machineLogKb += transitions * ASSUMED.stateMachineLogKb;
    s3Puts += chunks * ASSUMED.batchS3PutsPerChunk + lines * ASSUMED.batchS3PutsPerLine;
    s3Gets += chunks * ASSUMED.batchS3GetsPerChunk;
    dynamoWrites += lines * ASSUMED.batchWritesPerLine;
  }

  // Document libraries: one ingestion execution per document (Run: extract, OCR where needed, chunk, embed, index),
  // the chunks' vectors in S3 Vectors, and the searches: one QueryVectors per library searched, billed per call and
  // for the data of the library's index it processes (vectors, filterable metadata and keys, not the chunk text).
  if (load.libraries && (load.libraries.documents > 0 || (load.libraries.queries ?? 0) > 0 || (load.libraries.documents_stored ?? 0) > 0)) {
    const l = load.libraries;
    const pagesPerDocument = l.pages_per_document ?? ASSUMED.libraryPagesPerDocument;
    const chunksPerDocument = pagesPerDocument * (l.chunks_per_page ?? ASSUMED.libraryChunksPerPage);
    const ingestion = resources.libraryIngestion;
    invoke("library ingestion: run", l.documents, ASSUMED.ingestionRunMs + pagesPerDocument * (l.run_ms_per_page ?? ASSUMED.ingestionRunMsPerPage), ingestion.runMb);
    const transitions = l.documents * ASSUMED.ingestionTransitionsPerDocument;
    add("Step Functions", "library ingestion transitions (Standard)", "step_functions_standard_transitions", transitions);
    if (ingestion.logsExecutionData) machineLogKb += transitions * ASSUMED.stateMachineLogKb;
    add("Textract", "OCR pages (DetectDocumentText)", "textract_detect_document_text_pages", l.documents * pagesPerDocument * (l.ocr_page_share ?? ASSUMED.libraryOcrPageShare));
    // The document read, its extracted text written; the document's status and the library's counters.
    s3Gets += l.documents;
    s3Puts += l.documents;
    dynamoReads += l.documents * ASSUMED.engineReads;
    dynamoWrites += l.documents * ASSUMED.engineWrites;
    const searchedBytes = (l.vector_dimension ?? ASSUMED.vectorDimension) * 4 + ASSUMED.vectorKeyBytes + ASSUMED.vectorFilterableBytes;
    const vectorBytes = searchedBytes + ASSUMED.vectorTextBytes;
    const storedVectors = (l.documents_stored ?? l.documents) * chunksPerDocument;
    add("S3 Vectors", "vectors written (PutVectors)", "s3vectors_put_gb", (l.documents * chunksPerDocument * vectorBytes) / GB);
    add("S3 Vectors", "vector storage", "s3vectors_storage", (storedVectors * vectorBytes) / GB);
    const calls = (l.queries ?? 0) * (l.libraries_per_query ?? ASSUMED.librariesPerQuery);
    add("S3 Vectors", "QueryVectors calls", "s3vectors_query_requests", calls);
    add("S3 Vectors", "query data processed", "s3vectors_query_tb", (calls * (storedVectors / (l.libraries ?? 1)) * searchedBytes) / GB / 1024);
  }

  // The OCR route's and OCR batch lines' pages, read by Textract (the cloud catalog's OCR model).
  if (load.ocr?.pages) add("Textract", "OCR pages of /v1/ocr and batch lines (DetectDocumentText)", "textract_detect_document_text_pages", load.ocr.pages);

  // Workflows: Standard machines' transitions; the dispatcher per Task, the status handler per execution.
  const wf = resources.workflows;
  if (load.workflows) {
    const { executions, state_transitions } = load.workflows;
    add("Step Functions", "workflow machine transitions (Standard)", "step_functions_standard_transitions", state_transitions);
    const tasks = load.workflows.tasks ?? 0;
    invoke("workflow dispatcher", tasks, load.workflows.task_ms ?? ASSUMED.workflowTaskMs, wf.dispatchMb);
    invoke("workflow status handler", executions, ASSUMED.engineMs, wf.statusMb);
    add("EventBridge", "Step Functions status changes (AWS events)", "eventbridge_aws_events", executions);
    dynamoReads += (tasks + executions) * ASSUMED.engineReads;
    dynamoWrites += (tasks + executions) * ASSUMED.engineWrites;
  }
  // Schedules and timers: EventBridge Scheduler invocations of the fire and timer handlers.
  const fires = load.schedules?.fires ?? 0;
  const timers = load.schedules?.timers_fired ?? 0;
  add("EventBridge Scheduler", "schedule fires and timers", "scheduler_invocations", fires + timers);
  invoke("schedule fire handler", fires, ASSUMED.engineMs, wf.scheduleFireMb);
  invoke("timer handler", timers, ASSUMED.engineMs, wf.timerMb);
  dynamoReads += (fires + timers) * ASSUMED.engineReads;
  dynamoWrites += (fires + timers) * ASSUMED.engineWrites;
  // The engine's own rates run with no load at all.
  for (const p of wf.periodic) {
    const runs = minutes / p.everyMinutes;
    invoke(`${p.name} every ${p.everyMinutes} min`, runs, ASSUMED.periodicMs, p.memoryMb, true);
  }

  let spanTableGb = 0;
  // Spans: OTLP in, partitioned objects in S3, Athena over them, DynamoDB point records.
  if (load.observability) {
    const o = load.observability;
    const spanGb = (o.spans_ingested * (o.span_bytes ?? ASSUMED.spanBytes)) / GB;
    const objects = Math.ceil(o.spans_ingested / (o.spans_per_object ?? ASSUMED.spansPerObject));
    add("S3", "span objects written", "s3_put_requests", objects);
    add("S3", "span storage (retention)", "s3_standard_storage", (spanGb * (o.retention_days ?? ASSUMED.spanRetentionDays)) / 30);
    const queries = o.queries ?? 0;
    const scannedGb = Math.max(o.gb_scanned_per_query ?? ASSUMED.gbScannedPerQuery, ASSUMED.athenaMinMbPerQuery / 1024);
    add("Athena", "span queries", "athena_tb_scanned", (queries * scannedGb) / 1024);
    const objectGb = spanGb / Math.max(objects, 1);
    add("S3", "span objects read by Athena", "s3_get_requests", objectGb > 0 ? queries * Math.max(1, Math.ceil(scannedGb / objectGb)) : 0);
    // Every span is also a point record (the telemetry table, with a TTL): its item, cut to a bound (a write unit
    // per KB), and its pointer item (one unit), stored for the retention.
    const points = o.point_records ?? o.spans_ingested;
    const pointBytes = Math.min(o.span_bytes ?? ASSUMED.spanBytes, ASSUMED.pointItemMaxBytes);
    const pointGb = (points * pointBytes) / GB;
    add("DynamoDB", "span point records (write units)", "dynamodb_write_request_units", points * (Math.ceil(pointBytes / 1024) + 1));
    spanTableGb = (pointGb * (o.retention_days ?? ASSUMED.spanRetentionDays)) / 30;
  }

  // The audit log (decision 44): one conditional put per privileged change, kept for its retention; its table is
  // backed up like every table. At a steady month the table holds `retention_days / 30` months of events.
  let auditTableGb = 0;
  if (load.audit) {
    const a = load.audit;
    const bytes = a.event_bytes ?? ASSUMED.auditEventBytes;
    add("DynamoDB", "audit events (write units)", "dynamodb_write_request_units", a.events * Math.ceil(bytes / 1024));
    auditTableGb = ((a.events * bytes) / GB) * ((a.retention_days ?? ASSUMED.auditRetentionDays) / 30);
    add("DynamoDB", "audit log storage (retention)", "dynamodb_storage", auditTableGb);
    add("DynamoDB", "audit log point-in-time recovery", "dynamodb_pitr", auditTableGb);
  }

  // Storage.
  const storage = load.storage ?? {};
  add("S3", "files (current versions)", "s3_standard_storage", storage.s3_gb ?? 0);
  add("S3", "files (noncurrent versions)", "s3_standard_storage", storage.s3_noncurrent_gb ?? 0);
  const tableGb = (storage.dynamodb_gb ?? 0) + spanTableGb;
  add("DynamoDB", `storage (${resources.tables} tables${spanTableGb ? ", span point records included" : ""})`, "dynamodb_storage", tableGb);
  add("DynamoDB", "point-in-time recovery", "dynamodb_pitr", tableGb);

  // The edge: CloudFront in front of everything, and the upload service behind it (a fixed monthly cost).
  const cloudfront = load.cloudfront ?? true;
  const uploads = load.uploads;
  if (uploads && uploads.files > 0 && !cloudfront) throw new CostLoadError("uploads go through the CloudFront distribution and the upload service: set cloudfront to true or leave uploads out");
  const sessions = load.realtime?.sessions ?? 0;
  if (sessions > 0 && !cloudfront) {
    throw new CostLoadError("realtime transcription sessions are WebSockets through the CloudFront distribution and the upload service: set cloudfront to true or leave realtime out");
  }
  // The web console (docs/console.md). Its assets are stored with the distribution whatever the load (S3, every release
  // kept: the deployment does not prune). A page load costs the HTML entry (no-cache: the page function, API Gateway and,
  // with the distribution, a CloudFront request) and, on a cold load, the release's hashed files: from the edge (cached
  // a year; S3 is read once per file and edge cache, a few GETs a release, not counted) or, without the distribution,
  // from the asset function. Warm loads use the browser's copy. The API calls its pages then make (usage, keys, files,
  // …) are NOT added here: a console page calls the documented routes as any client does, and the load gives those
  // calls in `requests`, in the families they belong to.
  const con = resources.console;
  const releases = load.console?.releases_stored ?? ASSUMED.consoleReleasesStored;
  if (cloudfront) add("Console", `assets in S3 (${releases} releases of ${con.releaseMb} MB)`, "s3_standard_storage", (releases * con.releaseMb) / 1024, true);
  const pageLoads = load.console?.page_loads ?? 0;
  if (pageLoads > 0) {
    const assetRequests = pageLoads * (load.console!.cold_share ?? ASSUMED.consoleColdShare) * con.files;
    const sentGb = (pageLoads * ASSUMED.consolePageKb + (assetRequests / con.files) * con.firstLoadKb) / KB_PER_GB;
    const apiRequests = pageLoads + (cloudfront ? 0 : assetRequests);
    add("Console", `page function (${con.pageMemoryMb} MB)`, "lambda_arm64_gb_seconds", (pageLoads * ASSUMED.consolePageMs * con.pageMemoryMb) / 1000 / 1024);
    if (!cloudfront) add("Console", `asset function (${con.assetMemoryMb} MB)`, "lambda_arm64_gb_seconds", (assetRequests * ASSUMED.consoleAssetMs * con.assetMemoryMb) / 1000 / 1024);
    lambdaInvocations += apiRequests;
    logKb += apiRequests * logKbDefault;
    accessLogKb += apiRequests * (defaults.access_log_kb ?? ASSUMED.accessLogKb);
    add("Console", cloudfront ? "HTML entries (API Gateway)" : "HTML entries and cold loads' assets (API Gateway)", "api_gateway_rest_requests", apiRequests);
    if (cloudfront) {
      add("Console", "CloudFront requests (HTML entries, cold loads' assets)", "cloudfront_https_requests", pageLoads + assetRequests);
      add("Console", "CloudFront data out (HTML entries, cold loads' assets)", "cloudfront_data_out", sentGb);
    } else {
      add("Console", "data out (HTML entries, cold loads' assets)", "data_transfer_out", sentGb);
    }
  }

  if (cloudfront) {
    const up = resources.upload;
    const edgeRequests = requests + (uploads?.files ?? 0);
    add("CloudFront", "HTTPS requests", "cloudfront_https_requests", edgeRequests);
    add("CloudFront", "data out to clients", "cloudfront_data_out", responseGb);
    if (up.cloudFrontFunction) add("CloudFront", "origin-picking function", "cloudfront_function_invocations", edgeRequests);
    add("CloudFront", "upload bodies to the origin", "cloudfront_data_to_origin", uploads?.gb ?? 0);
    const vcpu = up.cpu / 1024;
    const memGb = up.memoryMiB / 1024;
    const arch = up.architecture === "ARM64" ? ("arm64" as const) : ("x86" as const);
    const size = `${vcpu} vCPU, ${memGb} GB, ${up.architecture}`;
    add("Upload service", `Fargate vCPU (${up.desiredCount} × ${size})`, `fargate_${arch}_vcpu_hours`, up.desiredCount * vcpu * hours, true);
    add("Upload service", "Fargate memory", `fargate_${arch}_gb_hours`, up.desiredCount * memGb * hours, true);
    add("Upload service", "load balancer hours", "alb_hours", hours, true);
    // An LCU is 1 GB processed an hour or 25 new connections a second (the larger counts); averaged over the month.
    const lcu = Math.max((uploads?.gb ?? 0) / hours, (uploads?.files ?? 0) / (hours * 3600) / 25);
    add("Upload service", "load balancer capacity units", "alb_lcu_hours", lcu * hours);
    add("Upload service", "public IPv4 addresses", "public_ipv4_hours", up.publicIpv4 * hours, true);
    add("Upload service", "NAT gateways", "nat_gateway_hours", up.natGateways * hours, true);
    if (up.natGateways > 0) add("Upload service", "NAT data", "nat_gateway_data", uploads?.gb ?? 0);
    add("Upload service", "container image (ECR)", "ecr_storage", up.imageGb, true);
    add("Upload service", "alarm metrics", "cloudwatch_alarms", up.alarmMetrics, true);
    add("Upload service", "dashboard", "cloudwatch_dashboards", up.dashboards, true);
    // Realtime transcription: each session a WebSocket through CloudFront and the balancer to the service's tasks (the
    // fixed ones above), its audio streamed on to Amazon Transcribe. The audio is the balancer's processed bytes (1 GB
    // an LCU-hour), which outweigh a session's one new connection; the transcript sent back is a few KB and left out.
    if (sessions > 0) {
      const audioMinutes = sessions * load.realtime!.avg_minutes;
      const audioGb = (audioMinutes * 60 * ASSUMED.realtimeAudioBytesPerSecond) / GB;
      add("Realtime transcription", "Transcribe streaming minutes", "transcribe_streaming_minutes", audioMinutes);
      add("Realtime transcription", "CloudFront requests (a WebSocket upgrade per session)", "cloudfront_https_requests", sessions);
      add("Realtime transcription", "CloudFront audio to the origin (16 kHz 16-bit mono)", "cloudfront_data_to_origin", audioGb);
      add("Realtime transcription", "load balancer capacity units (the audio processed)", "alb_lcu_hours", audioGb);
    }
    if (uploads) s3Puts += uploads.files * 2 + (uploads.gb * 1024) / up.partMb;
    if (uploads) dynamoWrites += uploads.files;
    add("Data transfer", "S3 downloads to the internet", "data_transfer_out", storage.s3_downloaded_gb ?? 0);
  } else {
    add("Data transfer", "API answers and S3 downloads to the internet", "data_transfer_out", responseGb + (storage.s3_downloaded_gb ?? 0));
  }

  add("Lambda", "requests (routes, authorizer, engine)", "lambda_requests", lambdaInvocations);
  add("Lambda", "requests (the engine's fixed rates)", "lambda_requests", periodicInvocations, true);
  add("DynamoDB", "read request units", "dynamodb_read_request_units", dynamoReads);
  add("DynamoDB", "write request units", "dynamodb_write_request_units", dynamoWrites);
  add("S3", "PUT requests (files, batch, uploads)", "s3_put_requests", s3Puts);
  add("S3", "GET requests (files, batch)", "s3_get_requests", s3Gets);
  add("KMS", "requests (connector secrets)", "kms_requests", kms);
  add("KMS", "customer managed keys", "kms_keys", resources.kmsKeys, true);

  const logGb = (logKb + accessLogKb + machineLogKb) / KB_PER_GB;
  add("CloudWatch", "log ingestion (functions, access log, state machines)", "cloudwatch_logs_ingestion", logGb);
  add(
    "CloudWatch",
    "log storage (retention)",
    "cloudwatch_logs_storage",
    (logKb * resources.logRetentionMonths.functions + accessLogKb * resources.logRetentionMonths.accessLogs + machineLogKb * resources.logRetentionMonths.stateMachines) /
      KB_PER_GB,
  );
  add("CloudWatch", "alarm metrics (an alarm is billed per metric it evaluates)", "cloudwatch_alarms", resources.alarmMetrics, true);
  // The price's tiers hold CloudWatch's always-free dashboards (config/prices.json): the first three cost nothing.
  add("CloudWatch", "dashboards", "cloudwatch_dashboards", resources.dashboards, true);
  // A metric filter or an EMF line publishes only when a log line comes, and CloudWatch bills a custom metric
  // for the hours it is published in: nothing at rest, all of them under any load (an upper bound, not prorated).
  const publishing = requests > 0 || (load.uploads?.files ?? 0) > 0 || sessions > 0 || pageLoads > 0;
  add("CloudWatch", "custom metrics (signals; none published at rest)", "cloudwatch_custom_metrics", publishing ? resources.customMetrics : 0);
  const emails = load.notifications?.alarm_emails ?? ASSUMED.alarmEmails;
  add("SNS", "alarm publishes", "sns_publishes", emails, true);
  add("SNS", "alarm e-mails", "sns_email_deliveries", emails, true);

  const lines: CostLine[] = priceTogether(usage, prices);

  // Model tokens, at the prices spend limits charge (a model the price file lacks is an error here, not free).
  for (const [id, tokens] of Object.entries(load.models ?? {})) {
    // A load names a model, or one deployment of it (`provider/upstream`) whose price differs from the model's.
    const price = models.deployments?.[id] ?? priceOf(models, { id });
    if (!price) throw new CostLoadError(`"${id}" has no price in config/prices.json (models or deployments section)`);
    const usd = costMicros(price, { promptTokens: tokens.input_tokens, completionTokens: tokens.output_tokens ?? 0, cachedTokens: tokens.cached_input_tokens }) / MICROS_PER_UNIT;
    lines.push({ service: "Models", item: `${id} input + output tokens`, quantity: tokens.input_tokens + (tokens.output_tokens ?? 0), unit: "token", usd, fixed: false, price: "model" });
  }

  const total = lines.reduce((sum, l) => sum + l.usd, 0);
  const fixed = lines.filter((l) => l.fixed).reduce((sum, l) => sum + l.usd, 0);
  return { region: aws.region, requests, lines, total, fixed };
}

/** Prices each price's lines together (tiers apply to the month's total) and shares the sum out in proportion. */
function priceTogether(usage: Usage[], prices: Record<AwsPriceKey, AwsPrice>): CostLine[] {
  const byPrice = new Map<AwsPriceKey, number>();
  for (const u of usage) byPrice.set(u.price, (byPrice.get(u.price) ?? 0) + u.quantity);
  return usage.map((u) => {
    const quantity = byPrice.get(u.price)!;
    const usd = priceQuantity(prices[u.price], quantity) * (u.quantity / quantity);
    return { service: u.service, item: u.item, quantity: u.quantity, unit: prices[u.price].unit, usd, fixed: u.fixed ?? false, price: u.price };
  });
}
