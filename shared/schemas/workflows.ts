import * as z from "zod";
import { Uuid } from "./common.js";
import { queryBoolean, queryInt, repeated } from "./query.js";

/**
 * The workflow routes' wire shapes (OpenAPI names in comments). Ids that key records are bounded so a
 * hostile one is a 422, never a DynamoDB key error.
 */
export const WorkflowExecutionStatus = z.enum(["RUNNING", "COMPLETED", "FAILED", "CANCELED", "TERMINATED", "CONTINUED_AS_NEW", "TIMED_OUT", "RETRYING_AFTER_ERROR"]);

export const WORKFLOW_EVENT_TYPE_VALUES = [
  "WORKFLOW_EXECUTION_STARTED",
  "WORKFLOW_EXECUTION_COMPLETED",
  "WORKFLOW_EXECUTION_FAILED",
  "WORKFLOW_EXECUTION_CANCELED",
  "WORKFLOW_EXECUTION_CONTINUED_AS_NEW",
  "WORKFLOW_TASK_TIMED_OUT",
  "WORKFLOW_TASK_FAILED",
  "CUSTOM_TASK_STARTED",
  "CUSTOM_TASK_IN_PROGRESS",
  "CUSTOM_TASK_COMPLETED",
  "CUSTOM_TASK_FAILED",
  "CUSTOM_TASK_TIMED_OUT",
  "CUSTOM_TASK_CANCELED",
  "ACTIVITY_TASK_STARTED",
  "ACTIVITY_TASK_COMPLETED",
  "ACTIVITY_TASK_RETRYING",
  "ACTIVITY_TASK_FAILED",
] as const;
export const WorkflowEventType = z.enum(WORKFLOW_EVENT_TYPE_VALUES);

/** A workflow's id or name (names are the registering worker's; ids UUIDs). */
const WorkflowIdentifier = z.string().min(1).max(256);
/** OA:WorkflowExecutionRequest.execution_id: a tenant string of up to 256 characters. */
export const ExecutionId = z.string().min(1).max(256);
const Order = z.enum(["asc", "desc"]);
const DateTime = z.iso.datetime({ offset: true });

export const WorkflowIdentifierParams = z.object({ workflow_identifier: WorkflowIdentifier });
export const WorkflowRegistrationParams = z.object({ workflow_registration_id: Uuid });
export const WorkflowNameParams = z.object({ workflow_name: WorkflowIdentifier });
export const ExecutionParams = z.object({ execution_id: ExecutionId });
export const RunParams = z.object({ run_id: Uuid });

/** GET /v1/workflows. `status`, `include_shared` are accepted (no shared workflows exist; a workflow has no status). */
export const WorkflowListQuery = z.object({
  status: repeated(WorkflowExecutionStatus),
  include_shared: queryBoolean(true),
  available_in_chat_assistant: z.stringbool().optional(),
  deployment_name: repeated(z.string().max(256)),
  deployment_status: z.enum(["active", "inactive"]).optional(),
  archived: z.stringbool().optional(),
  tags: repeated(z.string().max(256)),
  sort_by: z.literal("display_name").optional(),
  order: Order.default("asc"),
  cursor: z.string().max(2048).optional(),
  limit: queryInt().min(1).max(1000).default(50),
  active_only: queryBoolean(false),
  search: z.string().max(256).optional(),
});
export type WorkflowListQuery = z.infer<typeof WorkflowListQuery>;

/** GET /v1/workflows/registrations. */
export const RegistrationListQuery = z.object({
  workflow_id: Uuid.optional(),
  task_queue: z.string().max(256).optional(),
  active_only: queryBoolean(false),
  include_shared: queryBoolean(true),
  workflow_search: z.string().max(256).optional(),
  archived: z.stringbool().optional(),
  with_workflow: queryBoolean(false),
  available_in_chat_assistant: z.stringbool().optional(),
  limit: queryInt().min(1).max(1000).default(50),
  cursor: z.string().max(2048).optional(),
});
export type RegistrationListQuery = z.infer<typeof RegistrationListQuery>;

/** GET /v1/workflows/registrations/{workflow_registration_id}. `include_shared` is accepted (no shared workflows exist). */
export const RegistrationGetQuery = z.object({ with_workflow: queryBoolean(false), include_shared: queryBoolean(true) });

/** OA:WorkflowBulkArchiveRequest and OA:WorkflowBulkUnarchiveRequest. */
export const WorkflowBulkArchiveRequest = z.object({ workflow_ids: z.array(Uuid).max(100) });

/** OA:WorkflowUpdateRequest. */
export const WorkflowUpdateRequest = z.object({
  display_name: z.string().min(1).max(128).nullish(),
  description: z.string().max(4096).nullish(),
  available_in_chat_assistant: z.boolean().nullish(),
  tags: z.array(z.string().min(1).max(256)).max(50).nullish(),
});
export type WorkflowUpdateRequest = z.infer<typeof WorkflowUpdateRequest>;

export const MetricsQuery = z.object({ start_time: DateTime.optional(), end_time: DateTime.optional() });

/**
 * OA:WorkflowExecutionRequest, plus the spec's `traceparent`. Tracing fields and `extensions` are taken and
 * not acted on (no tracing backend); `task_queue` is the deprecated name of `deployment_name`.
 */
export const WorkflowExecutionRequest = z.object({
  execution_id: ExecutionId.nullish(),
  input: z.record(z.string(), z.unknown()).nullish(),
  wait_for_result: z.boolean().default(false),
  timeout_seconds: z.number().positive().max(86_400).nullish(),
  custom_tracing_attributes: z.record(z.string(), z.string()).nullish(),
  force_new_trace: z.boolean().default(false),
  extensions: z.record(z.string(), z.unknown()).nullish(),
  task_queue: z.string().min(1).max(256).nullish(),
  deployment_name: z.string().min(1).max(256).nullish(),
  traceparent: z.string().max(256).nullish(),
});
export type WorkflowExecutionRequest = z.infer<typeof WorkflowExecutionRequest>;

export const GetExecutionQuery = z.object({ include_search_keys: queryBoolean(false) });

/** OA:BatchExecutionBody. */
export const BatchExecutionBody = z.object({ execution_ids: z.array(ExecutionId).min(1).max(100) });

/** GET /v1/workflows/runs. `workflow_tags`, `include_internal` and `search_key` are accepted (no internal runs, no search attributes). */
export const RunListQuery = z.object({
  workflow_identifier: WorkflowIdentifier.optional(),
  root_execution_id: ExecutionId.optional(),
  search: z.string().max(256).optional(),
  status: repeated(WorkflowExecutionStatus),
  deployment_name: z.string().max(256).optional(),
  sort_by: z.enum(["start_time", "end_time"]).optional(),
  order: Order.default("desc"),
  start_time_after: DateTime.optional(),
  start_time_before: DateTime.optional(),
  end_time_after: DateTime.optional(),
  end_time_before: DateTime.optional(),
  user_id: z.string().max(256).optional(),
  workflow_tags: repeated(z.string().max(256)).pipe(z.array(z.string()).max(20).optional()),
  include_internal: queryBoolean(true),
  page_size: queryInt().min(1).max(1000).default(50),
  next_page_token: z.string().max(2048).optional(),
  search_key: repeated(z.string().max(256)).pipe(z.array(z.string()).max(3).optional()),
});
export type RunListQuery = z.infer<typeof RunListQuery>;

/** GET /v1/workflows/events/list. */
export const EventListQuery = z.object({
  root_workflow_exec_id: ExecutionId.optional(),
  workflow_exec_id: ExecutionId.optional(),
  workflow_run_id: z.string().min(1).max(256).optional(),
  limit: queryInt().min(1).max(1000).default(100),
  cursor: z.string().max(2048).optional(),
});
export type EventListQuery = z.infer<typeof EventListQuery>;

/**
 * GET /v1/workflows/events/stream. Every filter defaults to `*` ("not given"; the SDK always sends it).
 * Loose: the SDK spreads `metadata_filters` into the query, and filters by metadata are not applied.
 */
export const EventStreamQuery = z.looseObject({
  scope: z.enum(["activity", "workflow", "*"]).default("*"),
  activity_name: z.string().max(256).default("*"),
  activity_id: z.string().max(256).default("*"),
  workflow_name: z.string().max(256).default("*"),
  workflow_exec_id: z.string().max(256).default("*"),
  root_workflow_exec_id: z.string().max(256).default("*"),
  parent_workflow_exec_id: z.string().max(256).default("*"),
  stream: z.string().max(256).default("*"),
  start_seq: queryInt().min(0).default(0),
  workflow_event_types: repeated(WorkflowEventType),
});
export type EventStreamQuery = z.infer<typeof EventStreamQuery>;

// ---- responses ----

const DefinitionOut = z.looseObject({ input_schema: z.record(z.string(), z.unknown()) });

/** OA:WorkflowBasicDefinition. */
export const WorkflowBasicOut = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string(),
  description: z.string().nullable(),
  metadata: z.object({ shared_namespace: z.string().nullable() }),
  archived: z.boolean(),
  tags: z.array(z.string()),
});

export const WorkflowListOut = z.object({ workflows: z.array(WorkflowBasicOut), next_cursor: z.string().nullable() });

/** OA:Workflow. */
export const WorkflowOut = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string(),
  type: z.literal("code"),
  description: z.string().nullable(),
  customer_id: z.string(),
  workspace_id: z.string(),
  shared_namespace: z.string().nullable(),
  available_in_chat_assistant: z.boolean(),
  is_technical: z.boolean(),
  archived: z.boolean(),
  tags: z.array(z.string()),
});
export type WorkflowOut = z.infer<typeof WorkflowOut>;

/** OA:WorkflowWithWorkerStatus. */
export const WorkflowWithWorkerStatusOut = WorkflowOut.extend({ active: z.boolean() });

export const WorkflowGetOut = z.object({ workflow: WorkflowWithWorkerStatusOut });
export const WorkflowUpdateOut = z.object({ workflow: WorkflowOut });

/** OA:WorkflowRegistration. */
export const RegistrationOut = z.object({
  id: z.string(),
  deployment_id: z.string().nullable(),
  task_queue: z.string().nullable(),
  definition: DefinitionOut,
  workflow_id: z.string(),
  workflow: WorkflowOut.nullable(),
  deployment_name: z.string().nullable(),
  compatible_with_chat_assistant: z.boolean(),
});
export type RegistrationOut = z.infer<typeof RegistrationOut>;

/** OA:WorkflowRegistrationWithWorkerStatus: `active` while a worker of its deployment beats. */
export const RegistrationWithWorkerStatusOut = RegistrationOut.extend({ active: z.boolean() });

/** OA:WorkflowRegistrationGetResponse: `workflow_version` is the deprecated name of the same registration. */
export const RegistrationGetOut = z.object({ workflow_registration: RegistrationWithWorkerStatusOut, workflow_version: RegistrationWithWorkerStatusOut });

/** OA:WorkflowArchiveResponse and OA:WorkflowUnarchiveResponse. */
export const WorkflowArchiveOut = z.object({ workflow: WorkflowOut });

/** OA:WorkflowBulkError. */
const WorkflowBulkErrorOut = z.object({ workflow_id: z.string(), workflow: WorkflowOut.nullable(), message: z.string() });
/** OA:WorkflowBulkArchiveResponse. */
export const WorkflowBulkArchiveOut = z.object({ archived: z.array(WorkflowOut), errored: z.array(WorkflowBulkErrorOut) });
/** OA:WorkflowBulkUnarchiveResponse. */
export const WorkflowBulkUnarchiveOut = z.object({ unarchived: z.array(WorkflowOut), errored: z.array(WorkflowBulkErrorOut) });

export const RegistrationListOut = z.object({
  workflow_registrations: z.array(RegistrationOut),
  next_cursor: z.string().nullable(),
  workflow_versions: z.array(RegistrationOut),
});

const ScalarMetric = z.object({ value: z.number() });
/** OA:WorkflowMetrics. */
export const MetricsOut = z.object({
  execution_count: ScalarMetric,
  success_count: ScalarMetric,
  error_count: ScalarMetric,
  average_latency_ms: ScalarMetric,
  latency_over_time: z.object({ value: z.array(z.tuple([z.number().int(), z.number()])) }),
  retry_rate: ScalarMetric,
});

/** OA:WorkflowExecutionWithoutResultResponse. */
export const ExecutionWithoutResultOut = z.object({
  workflow_name: z.string(),
  workflow_id: z.string().nullable(),
  deployment_name: z.string().nullable(),
  execution_id: z.string(),
  parent_execution_id: z.string().nullable(),
  root_execution_id: z.string(),
  run_id: z.string().nullable(),
  user_id: z.string().nullable(),
  status: WorkflowExecutionStatus.nullable(),
  start_time: z.string(),
  end_time: z.string().nullable(),
  total_duration_ms: z.number().int().nullable(),
  /** Extension (decision 0042): who registered the program this run runs; its connector steps have their rights. */
  registered_by: z.object({ principal_id: z.string(), principal_type: z.enum(["user", "service_account"]), registration_id: z.string() }).nullable().optional(),
});

/** OA:WorkflowExecutionResponse (`result` is required, null while there is none). */
export const ExecutionOut = ExecutionWithoutResultOut.extend({
  result: z.unknown().transform((v) => v ?? null),
  search_keys: z.record(z.string(), z.string()).nullable().optional(),
});
export type ExecutionOut = z.infer<typeof ExecutionOut>;

/** OA:WorkflowExecutionSyncResponse. */
export const ExecutionSyncOut = z.object({ workflow_name: z.string(), execution_id: z.string(), result: z.unknown().transform((v) => v ?? null) });

/** Execute answers either: the full execution first, so a sync answer is never read as a truncated full one. */
export const ExecuteOut = z.union([ExecutionOut, ExecutionSyncOut]);

export const ExecutionListOut = z.object({ executions: z.array(ExecutionWithoutResultOut), next_page_token: z.string().nullable() });

/** OA:BatchExecutionResponse. */
export const BatchExecutionOut = z.object({
  results: z.record(z.string(), z.object({ status: z.enum(["success", "failure"]), error: z.string().nullable() })),
});

/** The WorkflowEvent envelope (reference/workflows.md §1.4), as stored. */
export const WorkflowEventOut = z.object({
  event_id: z.string(),
  event_timestamp: z.number().int(),
  root_workflow_exec_id: z.string(),
  parent_workflow_exec_id: z.string().nullable(),
  continued_run_id: z.string().nullable(),
  first_execution_run_id: z.string().nullable(),
  chain_run_id: z.string().nullable(),
  schedule_id: z.string().nullable(),
  workflow_exec_id: z.string(),
  workflow_run_id: z.string(),
  workflow_name: z.string(),
  event_type: WorkflowEventType,
  attributes: z.record(z.string(), z.unknown()),
});

export const EventListOut = z.object({ events: z.array(WorkflowEventOut), next_cursor: z.string().nullable() });
