import * as z from "zod";
import { Uuid } from "./common.js";

/**
 * The worker protocol (extension routes, docs/workflows.md "Workers"): how a deployment's workers
 * register workflows, poll for activity tasks and report on them over HTTP.
 */

/** Mistral's rule for DEPLOYMENT_NAME (reference/workflows.md §1.1). */
export const DeploymentName = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "Deployment names are 1 to 128 letters, digits, '-' and '_'");
/** A worker's name (Mistral's default is the host name): kept short enough for a sort key. */
export const WorkerName = z.string().min(1).max(200);
export const WorkflowName = z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, "Workflow names are 1 to 128 letters, digits, '.', '-' and '_'");
export const ActivityName = z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, "Activity names are 1 to 128 letters, digits, '.', '-' and '_'");

const JsonSchemaObject = z.record(z.string(), z.unknown());
const Handler = z.strictObject({ name: z.string().min(1).max(256), description: z.string().max(4096).nullish(), input_schema: JsonSchemaObject });
const ReplyingHandler = Handler.extend({ output_schema: JsonSchemaObject.nullish() });

/** A retry policy's bounds: each attempt is a run and a timer; a longer wait than a day is a schedule, not a retry. */
export const MAX_RETRY_ATTEMPTS = 100;
export const MAX_RETRY_INTERVAL_SECONDS = 86_400;

/** OA:WorkflowCodeDefinition. */
export const WorkflowCodeDefinition = z.strictObject({
  input_schema: JsonSchemaObject,
  output_schema: JsonSchemaObject.nullish(),
  signals: z.array(Handler).max(100).optional(),
  /** Extension: `projection`, a JSONPath reference path over the run's published state that answers the query (default `$`). */
  queries: z.array(ReplyingHandler.extend({ projection: z.string().max(1000).regex(/^\$((\.[A-Za-z_][\w-]*)|(\[\d+\])|(\['[^']*'\]))*$/, "A projection is a JSONPath reference path such as $.progress or $.items[0]").optional() })).max(100).optional(),
  updates: z.array(ReplyingHandler).max(100).optional(),
  enforce_determinism: z.boolean().optional(),
  on_behalf_of: z.boolean().optional(),
  /** Seconds; caps the whole execution. */
  execution_timeout: z.number().positive().max(366 * 24 * 3600).nullish(),
  plugin_metadata: z.record(z.string(), z.unknown()).nullish(),
  /** Extension (decision 20): a workflow-level retry policy. */
  retry_policy: z
    .strictObject({
      maximum_attempts: z.int().min(1).max(MAX_RETRY_ATTEMPTS),
      initial_interval_seconds: z.number().min(0).max(MAX_RETRY_INTERVAL_SECONDS).nullish(),
      backoff_coefficient: z.number().min(1).max(100).nullish(),
      maximum_interval_seconds: z.number().min(0).max(MAX_RETRY_INTERVAL_SECONDS).nullish(),
      non_retryable_error_types: z.array(z.string().min(1).max(256)).max(100).nullish(),
    })
    .nullish(),
});
export type WorkflowCodeDefinition = z.infer<typeof WorkflowCodeDefinition>;

export const WorkflowSpec = z.strictObject({
  name: WorkflowName,
  display_name: z.string().min(1).max(128).nullish(),
  description: z.string().max(4096).nullish(),
  definition: WorkflowCodeDefinition,
  /** The restricted Amazon States Language program (docs/workflows.md); stored, never echoed. */
  program: z.record(z.string(), z.unknown()),
  /** The activities this deployment's workers run; the program may name only these. */
  activities: z.array(ActivityName).max(1000).optional(),
});
export type WorkflowSpec = z.infer<typeof WorkflowSpec>;

export const RegisterRequest = z.strictObject({
  deployment_name: DeploymentName,
  worker_name: WorkerName.optional(),
  definitions: z.array(WorkflowSpec).min(1).max(100),
});
export type RegisterRequest = z.infer<typeof RegisterRequest>;

export const RegisterOut = z.object({
  workflow_registration_ids: z.array(z.string()),
  /** Deprecated alias of workflow_registration_ids (Mistral's workers read this one). */
  workflow_version_ids: z.array(z.string()),
  has_conflicts: z.boolean(),
  warnings: z.array(z.string()),
});
export type RegisterOut = z.infer<typeof RegisterOut>;

/** The longest a poll waits for a task (API Gateway cuts a request off at 29 s). */
export const MAX_POLL_WAIT_SECONDS = 20;

export const PollRequest = z.strictObject({
  deployment_name: DeploymentName,
  worker_name: WorkerName,
  activities: z.array(ActivityName).max(1000).optional(),
  wait_seconds: z.number().min(0).max(MAX_POLL_WAIT_SECONDS).default(MAX_POLL_WAIT_SECONDS),
});
export type PollRequest = z.infer<typeof PollRequest>;

export const TaskOut = z.object({
  task_id: z.string(),
  activity: z.string(),
  input: z.unknown(),
  workflow_name: z.string(),
  execution_id: z.string(),
  run_id: z.string(),
  attempt: z.number().int(),
  heartbeat_seconds: z.number().nullable(),
  state: z.string(),
});
export type TaskOut = z.infer<typeof TaskOut>;

/** `restart_requested`: POST /v1/workflows/deployments/{name}/restart asked this worker to restart (its next register clears it). */
export const PollOut = z.object({ task: TaskOut.nullable(), restart_requested: z.boolean() });

export const TaskParams = z.object({ task_id: Uuid });

/** Who makes a task call: the worker that claimed the task, in its deployment. */
const WorkerRef = { deployment_name: DeploymentName, worker_name: WorkerName };

export const TaskHeartbeatRequest = z.strictObject({ ...WorkerRef, details: z.unknown().optional() });
export const TaskHeartbeatOut = z.object({ cancel_requested: z.boolean() });

export const TaskCompleteRequest = z.strictObject({ ...WorkerRef, result: z.unknown().optional() });
export type TaskCompleteRequest = z.infer<typeof TaskCompleteRequest>;

export const TaskFailRequest = z.strictObject({
  ...WorkerRef,
  error: z.strictObject({
    /** The error name the program's Retry and Catch match on (Step Functions keeps 256 characters). */
    type: z.string().min(1).max(256).optional(),
    message: z.string().max(32_768),
  }),
  retryable: z.boolean().optional(),
});
export type TaskFailRequest = z.infer<typeof TaskFailRequest>;

export const TaskDoneOut = z.object({ status: z.enum(["completed", "failed"]) });

export const WhoamiOut = z.object({
  workspace_id: z.string(),
  organization_id: z.string(),
  principal_id: z.string(),
  principal_type: z.string(),
  scheduler_url: z.null(),
  namespace: z.string(),
  tls: z.boolean(),
});
