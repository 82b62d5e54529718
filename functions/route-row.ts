/**
 * What a route-table row says. The row is the only source of a route's policy: CDK builds its function,
 * role and method from it, the local server mounts it, the handler chain reads its auth, error family and
 * streaming from it, and the tests are generated over it.
 */
import type { AuditOperation } from "../shared/domain/audit.js";
import type { ErrorFamily } from "../shared/domain/errors.js";
import type { Permission } from "../shared/domain/identity/permissions.js";
import type { RoutePolicy } from "../shared/http/policy.js";
import type { MachineName } from "../shared/engine/machines.js";
import type { TableName } from "../shared/store/tables.js";

export type Access = "read" | "write" | "readwrite";
export type ObjectAccess = Access | "delete" | "read-delete" | "write-delete" | "readwrite-delete";

export interface Grants {
  /** DynamoDB tables by logical name (shared/store/tables.ts). */
  tables?: Partial<Record<TableName, Access>>;
  /** The files bucket, limited to the workspace object prefix. */
  files?: ObjectAccess;
  /** Sets tags on the objects it writes (s3:PutObjectTagging, same prefix): voice samples carry the tag the voices lifecycle rule selects. */
  tagObjects?: true;
  /**
   * Calls models through the providers: Bedrock invoke rights on the catalog's Bedrock models only, the shared
   * breakers of model deployments (read, put, delete in the rates table's `BREAKERS` partition, nothing else there)
   * and the response cache (get and put in the responses table).
   */
  models?: "invoke";
  /**
   * Calls speech models through the providers (their settings and keys, never Bedrock rights): `transcribe`
   * may start Amazon Transcribe streaming transcriptions, `synthesize` may call Amazon Polly.
   */
  speech?: "transcribe" | "synthesize";
  /**
   * Reads documents through the OCR providers (their settings and keys, never Bedrock rights): `detect-text` may call
   * Amazon Textract's synchronous DetectDocumentText.
   */
  ocr?: "detect-text";
  /** Counts requests of rate-limited keys: UpdateItem on the rates table, nothing else. Every keyed row has it. */
  rateCounters?: true;
  /** Starts and stops executions of a state machine of functions/engine.ts (its ARN arrives in the row's `arnEnv`). */
  executions?: Partial<Record<MachineName, "start-stop">>;
  /** What it may do to the workflow engine (docs/workflows.md); each right also brings the settings it needs. */
  workflows?: WorkflowRights;
  /**
   * Seals and opens connector secrets (shared/store/connectors/secrets.ts): kms:GenerateDataKey and
   * kms:Decrypt on the data stack's connector secrets key only, and the key's id in CONNECTOR_SECRETS_KEY_ID.
   */
  secrets?: true;
  /**
   * Appends to the audit log (docs/decisions/0044-audit-log.md): dynamodb:PutItem on the audit table and nothing
   * else there, never UpdateItem or DeleteItem. Rows that name an `audit` operation get it from `area()`.
   */
  appendAudit?: true;
  /**
   * The telemetry store (docs/observability.md): `write` appends spans, logs and evaluations to the telemetry
   * bucket's analytical objects; `query` runs the search engine (Athena's workgroup, the Glue tables, reads of
   * the telemetry objects and the query results).
   */
  telemetry?: "write" | "query" | "query-write";
  /**
   * The document libraries' vector store in the cloud (shared/engine/vectors/s3vectors.ts, docs/vector-search.md):
   * the deployment's one S3 Vectors bucket (its name in VECTOR_BUCKET) and its indexes, one per library, nothing
   * else. `query` may search: s3vectors:QueryVectors, and s3vectors:GetVectors, which S3 Vectors also asks of a
   * query that returns metadata or filters on it (every one of ours). `write` is what upserts and deletes send:
   * PutVectors, CreateIndex (a library's first write), ListVectors and DeleteVectors (a document's removal),
   * DeleteIndex (a library's), with QueryVectors and GetVectors so a writer can read too. The store sends no
   * GetIndex, so neither kind grants it.
   */
  vectors?: "query" | "write";
}

export interface WorkflowRights {
  /** Create workflow state machines and publish their versions, under the project's prefix, passing only the workflows' role. */
  publish?: true;
  /** Runs (executions of the project's workflow machines): `describe` them, or also `start-stop` them. */
  runs?: "describe" | "start-stop";
  /** Complete, fail and heartbeat task tokens (IAM cannot scope callback tokens: SendTask* on `*`). */
  tasks?: true;
  /**
   * One-time timers in the project's schedule group: `arm` creates, moves and deletes them (passing only the
   * timers' role), `disarm` only deletes them (the timer handler itself: arming would name its own ARN).
   */
  timers?: "arm" | "disarm";
  /**
   * Workflow schedules' fires in their own schedule group (docs/workflows.md, "Schedules"): `arm` creates, moves
   * and deletes them (passing only the schedules' role, which may invoke only the fire handler), `disarm` only
   * deletes them.
   */
  schedules?: "arm" | "disarm";
}

export interface RouteRow extends RoutePolicy {
  /** Module under functions/, without extension; it exports `handler`. */
  handler: string;
  grants: Grants;
  /** The function's memory; DEFAULT_MEMORY_MB when unset. */
  memoryMb?: number;
  /** Set on routes that are ours, not the spec's (documented in the README). */
  extension?: boolean;
  /** How the OpenAPI document describes the row's success answer (docs/api-reference.md); a row without it is a JSON 200. */
  doc?: RowDoc;
  /**
   * The privileged change the row makes, as the audit log names it: its operation records one event of this
   * operation (docs/decisions/0044-audit-log.md). The audit test walks every row that names one.
   */
  audit?: AuditOperation;
  /** Also takes the key as `x-api-key` (the official SDK's beta.users sends it so); served by an uncached authorizer. */
  keyHeader?: boolean;
}

/**
 * What the OpenAPI document cannot read from the handler's declared schemas (its `route()` spec: params, query,
 * body, and `response` or `returns` for the success body). Every field is optional.
 */
export interface RowDoc {
  /** The success status: 200 unless set (201, 202; 204 has no body; 302 redirects to the content). */
  status?: 200 | 201 | 202 | 204 | 302;
  /** The media type of a success body that is bytes, not JSON (e.g. `audio/wav`). A streaming row's events are documented from `streaming`. */
  media?: string;
  /** Also answers 302 to the bytes elsewhere (a presigned URL), besides its `status`. */
  redirects?: true;
  /** Marked deprecated in the document. */
  deprecated?: true;
  /** A one-line summary; the document derives one from the handler's name otherwise. */
  summary?: string;
}

/** The success statuses a row answers, as the OpenAPI document gives them (the fuzz ring holds answers to them). */
export const successStatuses = (row: Pick<RouteRow, "doc">): number[] => [row.doc?.status ?? 200, ...(row.doc?.redirects ? [302] : [])];

/** Rows that call models through the providers (chat, speech, OCR): they get the providers' settings and Mistral's tokenizer. */
export const callsProviders = (grants: Grants): boolean => Boolean(grants.models || grants.speech || grants.ocr);

/** Memory of a function whose row (or engine task) names none: CDK, the local servers and the cost model read it here. */
export const DEFAULT_MEMORY_MB = 512;

/** A row as an area's routes file writes it: what the area's defaults say need not be repeated. */
export type RowInput = Omit<RouteRow, "auth" | "errors" | "streaming"> & Partial<Pick<RouteRow, "auth" | "errors" | "streaming">>;

export interface AreaDefaults {
  auth?: RouteRow["auth"];
  errors?: ErrorFamily;
  /** The permission of the area's GET rows (`read`) and of its other rows (`write`), unless a row names its own (an area of public rows has none). */
  permissions?: { read: Permission; write: Permission };
}

/** An area's rows with its defaults applied (auth `key`, the platform error family, not streamed, read/write permissions). */
export function area(defaults: AreaDefaults, rows: RowInput[]): RouteRow[] {
  return rows.map((row) => {
    const auth = row.auth ?? defaults.auth ?? "key";
    const permission = auth === "public" ? undefined : (row.permission ?? (row.method === "GET" ? defaults.permissions?.read : defaults.permissions?.write));
    if (auth !== "public" && !permission) throw new Error(`${row.method} ${row.path} takes a key but names no permission`);
    // Every keyed route counts requests of rate-limited keys (shared/services/identity/rate-limits.ts).
    const keyed = auth === "public" ? row.grants : { ...row.grants, rateCounters: true as const };
    // A row that makes a privileged change appends its event to the audit log: that right, and only it.
    const grants = row.audit ? { ...keyed, appendAudit: true as const } : keyed;
    return { errors: defaults.errors ?? "platform", streaming: false, ...row, auth, permission, grants };
  });
}
