import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { ApiError, Forbidden, NotFound, PayloadTooLarge } from "../../domain/errors.js";
import { eventOf, jsonPayload, type WorkflowEventType } from "../../domain/workflows/events.js";
import type { DeploymentRecord, TaskRecord } from "../../domain/workflows/records.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { deploymentPrincipalOf } from "../../domain/workflows/ownership.js";
import { completeTask, failTask, heartbeatTask } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import type { PollRequest, TaskCompleteRequest, TaskFailRequest, TaskOut } from "../../schemas/workers.js";
import { eventStore } from "../../store/workflows/events.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { runStore } from "../../store/workflows/runs.js";
import { taskStore, type StoredTask } from "../../store/workflows/tasks.js";
import { recordEngineLine } from "./engine-log.js";

/**
 * The worker side of workflows (docs/workflows.md, "Workers"): polls hand out activity tasks of the
 * worker's deployment, and the task calls of the worker that claimed one reach Step Functions through
 * the task's token, which never leaves the server. A worker sees only its workspace's tasks, and of
 * those only its deployment's.
 */

/** Step Functions takes at most 256 KiB as a task's output. */
export const MAX_RESULT_BYTES = 256 * 1024;

/** How long a poll waits between looks at an empty queue: short at first, then at most this. */
export const POLL_BACKOFF = { firstMs: 100, factor: 1.5, maxMs: 500 } as const;

/** Who a worker runs as, for its worker record and a deployment's authorized set: the service account, or the key. */
export const principalOf = (caller: Caller) => deploymentPrincipalOf(caller);

/**
 * Hardening (decision 0023): a deployment with authorized principals takes register, polls and task calls
 * from them only; anyone else gets 403 `deployment_hardened`, before anything is read or written for them.
 */
export function assertMayAct(caller: Caller, deployment: Pick<DeploymentRecord, "name" | "principals"> | undefined, what: string): void {
  const principals = deployment?.principals ?? [];
  if (principals.length && !principals.includes(principalOf(caller))) {
    throw new Forbidden(`Deployment '${deployment!.name}' is hardened: only its authorized principals may ${what}`, "deployment_hardened");
  }
}

/** Every worker call counts as the worker's heartbeat (deployment liveness). */
export async function touchWorker(caller: Caller, deployment: string, worker: string): Promise<void> {
  await workflowRegistry.touchWorker({ workspace: caller.workspace, deploymentName: deployment, name: worker, lastHeartbeatMs: Date.now(), principal: principalOf(caller) });
}

/** Whether the deployment's restart flagged this worker (cleared by its next register). */
export async function restartRequested(caller: Caller, deployment: string, worker: string): Promise<boolean> {
  return (await workflowRegistry.getWorker(caller.workspace, deployment, worker))?.restartRequested === true;
}

export const toTaskOut = (task: TaskRecord): TaskOut => ({
  task_id: task.taskId,
  activity: task.activity,
  input: task.input ?? null,
  workflow_name: task.workflowName,
  execution_id: task.executionId,
  run_id: task.runId,
  attempt: task.attempt,
  heartbeat_seconds: task.heartbeatSeconds,
  state: task.state,
});

/** The poll's backoff step: its abort listener goes with it, or a long poll piles one up per step on the request's signal. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });

/**
 * Long-polls the deployment's queue for up to `wait_seconds`: the oldest task the worker may run,
 * claimed for it, or null. A stopped deployment gets no tasks (the poll waits, so its workers do not
 * spin); a deployment nobody registered yet has none and can get none before a worker registers in it,
 * so that poll answers at once.
 */
export async function poll(caller: Caller, request: PollRequest, signal?: AbortSignal): Promise<TaskOut | null> {
  const deployment = await workflowRegistry.getDeployment(caller.workspace, request.deployment_name);
  if (!deployment) return null;
  assertMayAct(caller, deployment, "poll its tasks");
  await touchWorker(caller, request.deployment_name, request.worker_name);
  const deadline = Date.now() + request.wait_seconds * 1000;
  let delay: number = POLL_BACKOFF.firstMs;
  for (let first = true; ; first = false) {
    // Stop (and delete) reach a poll that is already waiting: the deployment is read again before each look.
    const current = first ? deployment : await workflowRegistry.getDeployment(caller.workspace, request.deployment_name);
    if (current && !current.stopped) {
      const task = await taskStore.claimNext(caller.workspace, request.deployment_name, request.worker_name, request.activities);
      if (task) {
        await recordEvent(task, "ACTIVITY_TASK_STARTED", { task_id: task.taskId, activity_name: task.activity, input: jsonPayload(task.input) });
        return toTaskOut(task);
      }
    }
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return null;
    await sleep(Math.min(delay, left), signal);
    delay = Math.min(POLL_BACKOFF.maxMs, delay * POLL_BACKOFF.factor);
  }
}

/**
 * Appends an activity event to the task's run; the task's move stands whether or not it could be written. A closed
 * run's history does not change (it is cached as is): a late call leaves no event in it.
 */
export async function recordEvent(task: Pick<TaskRecord, "workspace" | "runId">, type: WorkflowEventType, attributes: Record<string, unknown>): Promise<void> {
  try {
    const run = await runStore.get(task.workspace, task.runId);
    if (!run || isClosed(run.status)) return;
    const event = eventOf(run, type, attributes, { id: randomUUID(), nowMs: Date.now() });
    // The engine's log line goes beside the event, not after it: it never fails the event (nor delays it).
    await Promise.all([eventStore.append(task.workspace, event), recordEngineLine(run, event)]);
  } catch (error) {
    logger.error("workflow event not recorded", { error: error as Error, type, runId: task.runId });
  }
}

/** A task call that comes too late, or from a worker that did not claim it. */
class TaskNotOpen extends ApiError {
  constructor(task: Pick<TaskRecord, "taskId" | "status">, why: string) {
    super(409, "conflict_error", `Task '${task.taskId}' ${why}`, "task_not_open", null, { familyCodes: { workflow: "WF_1102" }, extra: { status: task.status } });
  }
}

/** The task, when it is the caller's workspace's and the calling worker's deployment's: anything else is not there for it. */
export async function taskOfWorker(caller: Caller, taskId: string, worker: { deployment_name: string; worker_name: string }): Promise<StoredTask> {
  assertMayAct(caller, await workflowRegistry.getDeployment(caller.workspace, worker.deployment_name), "call its tasks");
  const task = await taskStore.get(caller.workspace, taskId);
  if (!task || task.deploymentName !== worker.deployment_name) throw new NotFound("task", taskId);
  await touchWorker(caller, worker.deployment_name, worker.worker_name);
  return task;
}

function refusal(task: StoredTask, worker: string): TaskNotOpen {
  if (task.status === "CLAIMED" && task.workerName !== worker) return new TaskNotOpen(task, `is claimed by another worker`);
  if (task.status === "PENDING") return new TaskNotOpen(task, "has not been claimed by this worker");
  return new TaskNotOpen(task, `is no longer open (${task.status})`);
}

/** Keeps a claimed task alive (its HeartbeatSeconds); answers whether the run was asked to cancel. */
export async function heartbeat(caller: Caller, taskId: string, worker: { deployment_name: string; worker_name: string }): Promise<{ cancel_requested: boolean }> {
  const task = await taskOfWorker(caller, taskId, worker);
  if (task.status !== "CLAIMED" || task.workerName !== worker.worker_name) throw refusal(task, worker.worker_name);
  if (!(await heartbeatTask(task.token))) {
    // Step Functions is done with it (timed out, its run stopped): nobody may report on it any more.
    const expired = await taskStore.expire(caller.workspace, taskId, Date.now());
    throw new TaskNotOpen(expired ?? task, "is no longer open: its workflow step is over");
  }
  const beaten = await taskStore.heartbeat(caller.workspace, taskId, worker.worker_name, Date.now());
  if (!beaten) throw refusal((await taskStore.get(caller.workspace, taskId)) ?? task, worker.worker_name);
  const run = await runStore.get(caller.workspace, task.runId);
  return { cancel_requested: run ? run.cancelRequested || run.status !== "RUNNING" : true };
}

/** The task's result goes to the program; the task is closed first, so a result is kept even when its token was lost. */
export async function complete(caller: Caller, taskId: string, request: TaskCompleteRequest): Promise<{ status: "completed" }> {
  const result = request.result ?? null;
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes > MAX_RESULT_BYTES) throw new PayloadTooLarge(`An activity result is at most ${MAX_RESULT_BYTES} bytes of JSON (Step Functions' limit); this one is ${bytes}`, "result_too_large");
  const task = await taskOfWorker(caller, taskId, request);
  const done = await taskStore.complete(caller.workspace, taskId, request.worker_name, result, Date.now());
  if (!done) throw refusal((await taskStore.get(caller.workspace, taskId)) ?? task, request.worker_name);
  // Written before the program gets the result: what the program does next (up to the run's closing event) comes
  // after it in the run's log, so a history or event stream never shows the run closed before its activity completed.
  await recordEvent(done, "ACTIVITY_TASK_COMPLETED", { task_id: taskId, activity_name: done.activity, result: jsonPayload(result) });
  if (!(await completeTask(done.token, result))) {
    // Kept COMPLETED (not delivered): if the local engine restarted, the resumed run takes this result instead of running the activity again.
    throw new TaskNotOpen(done, "was completed, but its workflow step is over (timed out or stopped)");
  }
  await taskStore.markDelivered(caller.workspace, taskId);
  return { status: "completed" };
}

/** The program's Retry and Catch see the error's type as the Step Functions error name (ActivityError when none). */
export async function fail(caller: Caller, taskId: string, request: TaskFailRequest): Promise<{ status: "failed" }> {
  const task = await taskOfWorker(caller, taskId, request);
  const failure = { message: request.error.message, type: request.error.type ?? ACTIVITY_ERROR };
  const done = await taskStore.fail(caller.workspace, taskId, request.worker_name, failure, request.retryable, Date.now());
  if (!done) throw refusal((await taskStore.get(caller.workspace, taskId)) ?? task, request.worker_name);
  await recordEvent(done, "ACTIVITY_TASK_FAILED", { task_id: taskId, activity_name: done.activity, attempt: done.attempt, failure: { message: failure.message, type: failure.type } });
  const delivered = await failTask(done.token, failure.type, failure.message);
  if (!delivered) throw new TaskNotOpen(done, "was failed, but its workflow step is over (timed out or stopped)");
  return { status: "failed" };
}

export const ACTIVITY_ERROR = "ActivityError";

/** Who the worker's key is, in the shape of Mistral's whoami (no Temporal here: scheduler_url is null). */
export function whoami(caller: Caller) {
  return {
    workspace_id: caller.workspace,
    organization_id: caller.organization,
    principal_id: caller.principal,
    principal_type: caller.principalType,
    scheduler_url: null,
    namespace: caller.workspace,
    tls: true,
  };
}
