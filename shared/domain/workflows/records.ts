import type { RetryPolicy } from "./retry-policy.js";
import type { StopIntent, WorkflowStatus } from "./statuses.js";

/**
 * The records of the workflow engine (docs/workflows.md has their keys). Times are ISO strings, as the
 * wire has them; `*Ms` fields are epoch milliseconds used for arithmetic (liveness, durations).
 */

/** The API's definition object (OA:WorkflowCodeDefinition), stored as registered and echoed as is. */
export interface WorkflowDefinition {
  input_schema: Record<string, unknown>;
  output_schema?: Record<string, unknown> | null;
  signals?: { name: string; description?: string | null; input_schema: Record<string, unknown> }[];
  /** `projection` (an extension): the JSONPath reference path over the run's published state that answers the query. */
  queries?: { name: string; description?: string | null; input_schema: Record<string, unknown>; output_schema?: Record<string, unknown> | null; projection?: string }[];
  updates?: { name: string; description?: string | null; input_schema: Record<string, unknown>; output_schema?: Record<string, unknown> | null }[];
  enforce_determinism?: boolean;
  on_behalf_of?: boolean;
  /** Seconds; caps the whole execution (all its runs). */
  execution_timeout?: number | null;
  /** A workflow-level retry policy (decision 20, shared/domain/workflows/retry-policy.ts); an extension of the API's definition. */
  retry_policy?: Partial<RetryPolicy> | null;
  plugin_metadata?: Record<string, unknown> | null;
}

/**
 * Who registered a program (decision 0042): its connector steps run with this principal's rights, resolved
 * again at run time. The key id only says which key sent it (an admin key's flag counts while it is live).
 */
export interface Registrant {
  principal: string;
  principalType: "user" | "service_account";
  keyId: string;
}

export interface WorkflowRecord {
  id: string;
  workspace: string;
  organization: string;
  name: string;
  displayName: string;
  description: string | null;
  tags: string[];
  availableInChatAssistant: boolean;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
  /** Who registered the name first: the one (besides a serving deployment's principals) who may register it again. Absent on workflows made before decision 0042. */
  owner?: Registrant | null;
}

export interface RegistrationRecord {
  id: string;
  workspace: string;
  workflowId: string;
  workflowName: string;
  deploymentName: string;
  definition: WorkflowDefinition;
  /** The tenant's ASL program; stored, never echoed. */
  program: Record<string, unknown>;
  programHash: string;
  /** The published state machine version that runs it. */
  versionArn: string;
  /** The `activity:<name>`s the program uses. */
  activities: string[];
  compatibleWithChatAssistant: boolean;
  createdAt: string;
  /** Whose rights the program's connector steps run with (decision 0042). Absent on registrations made before it, until registered again. */
  registeredBy?: Registrant | null;
}

export interface DeploymentRecord {
  id: string;
  workspace: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  /** Stopped pools get no tasks until started (POST …/stop, …/start). */
  stopped: boolean;
  /** Who created it through POST /v1/workflows/deployments (a user id); absent for pools made by a worker's register. */
  owner?: string | null;
  /** A managed deployment's stored spec and resources (no build runtime runs it in this installation). */
  managed?: ManagedSpec | null;
  /** Key ids or service accounts that alone may register into it; non-empty = hardened. */
  principals?: string[];
  /**
   * When it was made open on purpose (unharden, every principal removed, or created with `hardened: false`).
   * Deployments are hardened by default (decision 0042): an empty set without this mark is a record from
   * before that, which the next register adopts.
   */
  openedAt?: string | null;
  /** When a restart was last asked for (ISO); workers that beat before it are told to restart. */
  restartedAt?: string | null;
  rolloutStatus?: string | null;
  createdBy?: string | null;
  updatedBy?: string | null;
}

export interface ManagedSpec {
  githubUrl: string;
  revision: string | null;
  entrypoint: string | null;
  workingDir: string | null;
  resources: { replicas: number | null; cpu_request: string | null; cpu_limit: string | null; memory_request: string | null; memory_limit: string | null };
}

export interface WorkerRecord {
  workspace: string;
  deploymentName: string;
  name: string;
  /** Epoch ms of the last register/heartbeat/poll. */
  lastHeartbeatMs: number;
  workflows: string[];
  /** The principal (key id or service account) the worker runs as. */
  principal: string;
  /** Set by POST …/restart; the poll answer tells the worker, its next register clears it. */
  restartRequested?: boolean;
}

export interface ExecutionFailure {
  message: string;
  type?: string;
}

export interface RunRecord {
  runId: string;
  workspace: string;
  executionId: string;
  rootExecutionId: string;
  parentExecutionId: string | null;
  workflowId: string;
  workflowName: string;
  registrationId: string;
  deploymentName: string;
  userId: string | null;
  status: WorkflowStatus;
  input: unknown;
  result: unknown;
  failure: ExecutionFailure | null;
  startTime: string;
  endTime: string | null;
  /** The Step Functions execution (name = runId). */
  executionArn: string;
  /** Set before a stop so the ABORTED run is reported as meant. */
  intent: StopIntent | null;
  cancelRequested: boolean;
  /** The last top-level state entered and its input: where a restart resumes. */
  checkpoint: { state: string; input: unknown } | null;
  attempt: number;
  scheduleId: string | null;
  continuedRunId: string | null;
  firstExecutionRunId: string;
  /** Lifecycle (docs/workflows.md, "Continue-as-new, retries, child workflows"); absent on runs written before them. */
  /** Set by `platform:continue_as_new`: when the run succeeds, its execution continues as a new run with this input. */
  continueAsNew?: { input: unknown } | null;
  /** A child execution's run: the parent's Task that waits for the child's result. Carried to the child's next runs. */
  parentTask?: ParentTask | null;
  /** The W3C trace id of the execution (from the execute call's `traceparent`, else generated); carried to next runs. */
  traceId?: string | null;
  /** Set once the run started a child execution: its close stops the children still open (decision 21). */
  hasChildren?: boolean;
  /** Who registered the program this run runs (decision 0042); null for a registration made before registrants were recorded. */
  registeredBy?: Registrant | null;
}

/** Where a child's end is reported: the parent's run and the Step Functions token of its `platform:child_workflow` Task. */
export interface ParentTask {
  workspace: string;
  runId: string;
  executionId: string;
  token: string;
}

/** An execution: its latest run's fields (status mirrored on every run transition) under the execution id. */
export interface ExecutionRecord {
  workspace: string;
  executionId: string;
  latestRunId: string;
  status: WorkflowStatus;
  workflowId: string;
  workflowName: string;
  rootExecutionId: string;
  parentExecutionId: string | null;
  deploymentName: string;
  userId: string | null;
  startTime: string;
  endTime: string | null;
  result: unknown;
  /** Epoch ms after which the whole execution times out (definition.execution_timeout), or null. */
  deadlineMs: number | null;
}

export type TaskStatus = "PENDING" | "CLAIMED" | "COMPLETED" | "FAILED" | "EXPIRED";

/** An activity task: what a worker polls for, and the Step Functions token it completes (never shown). */
export interface TaskRecord {
  taskId: string;
  workspace: string;
  runId: string;
  executionId: string;
  rootExecutionId: string;
  workflowName: string;
  deploymentName: string;
  state: string;
  activity: string;
  input: unknown;
  status: TaskStatus;
  token: string;
  attempt: number;
  heartbeatSeconds: number | null;
  workerName: string | null;
  createdAt: string;
  claimedAtMs: number | null;
  lastHeartbeatMs: number | null;
  result?: unknown;
  failure?: ExecutionFailure;
}
