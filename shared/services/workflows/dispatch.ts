import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { asApiError } from "../../domain/errors.js";
import { validated } from "../../domain/validation.js";
import { eventOf, jsonPayload, WORKFLOW_EVENT_TYPES, type WorkflowEventType } from "../../domain/workflows/events.js";
import { parseResource, type DispatchEvent, type PlatformBuiltin, isRecord } from "../../domain/workflows/program/index.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { armTimer } from "../../engine/timers.js";
import { completeTask, describeRun, failTask } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import { ChatCompletionRequest, EmbeddingRequest } from "../../schemas/inference.js";
import { eventStore } from "../../store/workflows/events.js";
import { publishedStateStore } from "../../store/workflows/published-state.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { runStore } from "../../store/workflows/runs.js";
import { inputHashOf, taskStore, type StoredTask } from "../../store/workflows/tasks.js";
import * as completions from "../inference/completions.js";
import { childWorkflowBuiltin } from "./builtins/child-workflow.js";
import { continueAsNewBuiltin } from "./builtins/continue-as-new.js";
import { embed } from "../inference/embeddings.js";
import { callConnector } from "./builtins/connector.js";
import type { CallContext } from "../inference/usage.js";
import { awaitSignal } from "./builtins/await-signal.js";
import { awaitUpdate } from "./builtins/await-update.js";
import { completeUpdate } from "./builtins/complete-update.js";
import { inboxStore } from "../../store/workflows/inbox.js";
import { recordEngineLine } from "./engine-log.js";

/**
 * The dispatcher (docs/workflows.md, "The dispatcher"): every Task of every workflow program invokes it
 * with a task token. It finds the run from the Step Functions execution (never from program data), keeps
 * the run's checkpoint, and then queues the activity for the deployment's workers or runs the platform
 * built-in, completing or failing the token. Its own failures are thrown: Step Functions sees them as
 * the Task's error (and retries Lambda's own per the compiled program).
 */

/** A run's checkpoint, with when it was written (dispatches compare task times with it). */
type Checkpoint = NonNullable<RunRecord["checkpoint"]> & { atMs?: number };

/** The run id is the Step Functions execution's name, the last part of its ARN. */
export const runIdOf = (executionArn: string) => executionArn.split(":").at(-1) ?? "";

export async function dispatch(event: DispatchEvent): Promise<void> {
  const runId = runIdOf(event.execution);
  const run = await runStore.find(runId);
  if (!run) {
    await failTask(event.token, "Workflow.UnknownRun", `No workflow run '${runId}' exists for execution ${event.execution}`);
    return;
  }
  if (run.status !== "RUNNING") {
    await failTask(event.token, "Workflow.NotRunning", `The workflow run '${runId}' is ${run.status}`);
    return;
  }
  const before = run.checkpoint as Checkpoint | null;
  if (event.checkpoint !== undefined) {
    const checkpoint: Checkpoint = { state: event.state, input: event.checkpoint, atMs: Date.now() };
    await runStore.setCheckpoint(run.workspace, runId, checkpoint);
    await inboxStore.addStep({ workspace: run.workspace, runId, id: randomUUID(), state: event.state, input: event.checkpoint, atMs: checkpoint.atMs! });
  }
  const resource = parseResource(event.resource);
  if ("rule" in resource) {
    await failTask(event.token, "Workflow.UnknownResource", `The resource '${event.resource}' is not one the platform runs`);
    return;
  }
  if (resource.kind === "activity") return dispatchActivity(run, event, resource.name, before);
  return builtins[resource.builtin](run, event);
}

/**
 * Queues the activity as a task of the run's deployment, with its attempt: 1 + the tasks of the same
 * call (run, state, input) that failed or were lost since the last one that completed. Three things
 * make a dispatch of a call that has tasks already more than a new task:
 * - an open task made before this execution started (the local engine restarted and resumed the run)
 *   is given the new token: its worker goes on and its result reaches the resumed run;
 * - an open task of this execution is one Step Functions gave up on (a heartbeat timeout and a Retry):
 *   it is expired, so its late worker's calls are refused, and the new task is the next attempt;
 * - a task completed since the run's checkpoint whose result never reached Step Functions (its token was
 *   lost, or it belonged to the execution before a restart) completes the new token with that result,
 *   so an activity that completed does not run twice.
 */
async function dispatchActivity(run: RunRecord, event: DispatchEvent, activity: string, before: Checkpoint | null): Promise<void> {
  const inputHash = inputHashOf(event.input);
  const earlier = await taskStore.tasksOf(run.workspace, run.runId, event.state, inputHash);
  const latest = earlier.at(-1);
  let started: number | undefined;
  const executionStartMs = async () => (started ??= (await describeRun(event.execution))?.startDate?.getTime() ?? 0);

  if (latest && (latest.status === "PENDING" || latest.status === "CLAIMED")) {
    if (latest.createdAtMs < (await executionStartMs())) {
      if (await taskStore.rebind(run.workspace, latest.taskId, event.token)) return;
    } else {
      await taskStore.expire(run.workspace, latest.taskId, Date.now());
    }
  }
  if (latest?.status === "COMPLETED" && (latest.closedAtMs ?? 0) >= (before?.atMs ?? 0)) {
    const lost = !latest.delivered || (latest.closedAtMs ?? 0) < (await executionStartMs());
    if (lost) {
      if (await completeTask(event.token, latest.result ?? null)) await taskStore.markDelivered(run.workspace, latest.taskId);
      return;
    }
  }

  const lastCompleted = earlier.findLastIndex((task) => task.status === "COMPLETED");
  const sinceCompletion = earlier.slice(lastCompleted + 1);
  const now = Date.now();
  const task: StoredTask = {
    taskId: randomUUID(),
    workspace: run.workspace,
    runId: run.runId,
    executionId: run.executionId,
    rootExecutionId: run.rootExecutionId,
    workflowName: run.workflowName,
    deploymentName: run.deploymentName,
    state: event.state,
    activity,
    input: event.input ?? null,
    inputHash,
    status: "PENDING",
    token: event.token,
    attempt: 1 + sinceCompletion.length,
    heartbeatSeconds: await heartbeatSecondsOf(run, event.state),
    workerName: null,
    createdAt: new Date(now).toISOString(),
    createdAtMs: now,
    claimedAtMs: null,
    lastHeartbeatMs: null,
  };
  await taskStore.create(task);
  if (task.attempt > 1) {
    const previous = sinceCompletion.at(-1)!;
    const failure = previous.failure ?? { message: "The previous attempt did not finish in time (its worker stopped heartbeating, or the step timed out)" };
    await appendEvent(run, "ACTIVITY_TASK_RETRYING", { task_id: task.taskId, activity_name: activity, attempt: task.attempt, failure });
  }
}

/** Programs never change once registered: one read per registration per warm Lambda. */
const programs = new Map<string, Promise<Record<string, unknown> | undefined>>();

/** The HeartbeatSeconds of the state named `state` (the first found, at any depth), or null. */
async function heartbeatSecondsOf(run: RunRecord, state: string): Promise<number | null> {
  const key = `${run.workspace}#${run.registrationId}`;
  if (!programs.has(key)) programs.set(key, workflowRegistry.getRegistration(run.workspace, run.registrationId).then((r) => r?.program));
  const program = await programs.get(key)!.catch(() => undefined);
  const found = findState(program, state);
  return typeof found?.HeartbeatSeconds === "number" ? found.HeartbeatSeconds : null;
}

function findState(graph: unknown, name: string): Record<string, unknown> | undefined {
  if (typeof graph !== "object" || graph === null) return undefined;
  const states = (graph as { States?: Record<string, Record<string, unknown>> }).States;
  if (!states || typeof states !== "object") return undefined;
  if (states[name]) return states[name];
  for (const state of Object.values(states)) {
    for (const child of [...((state.Branches as unknown[]) ?? []), state.ItemProcessor, state.Iterator]) {
      const found = findState(child, name);
      if (found) return found;
    }
  }
  return undefined;
}

async function appendEvent(run: RunRecord, type: WorkflowEventType, attributes: Record<string, unknown>): Promise<void> {
  const event = eventOf(run, type, attributes, { id: randomUUID(), nowMs: Date.now() });
  // The engine's log line goes beside the event, not after it: it never fails the event (nor delays it).
  await Promise.all([eventStore.append(run.workspace, event), recordEngineLine(run, event)]);
}


/** A built-in's input it cannot use: the program's Retry/Catch see Workflow.InvalidInput. */
async function invalidInput(event: DispatchEvent, why: string): Promise<void> {
  await failTask(event.token, "Workflow.InvalidInput", `${event.resource} in state ${event.state}: ${why}`);
}

const builtins: Record<PlatformBuiltin, (run: RunRecord, event: DispatchEvent) => Promise<void>> = {
  model: callModel,
  emit_event: emitEvent,
  publish_state: publishState,
  sleep_until: sleepUntil,
  await_signal: awaitSignal,
  await_update: awaitUpdate,
  complete_update: completeUpdate,
  connector: callConnector,
  continue_as_new: continueAsNewBuiltin,
  child_workflow: childWorkflowBuiltin,
};

/**
 * A model call as the chat and embeddings routes make it (spend limit, usage record), for the run's
 * workspace and user: `{model, messages, …}` is a chat completion, `{model, input}` embeddings of a
 * string or strings (an `input` of conversation entries `{role, content}` is a chat with those messages).
 */
async function callModel(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input;
  if (!isRecord(input) || typeof input.model !== "string") return invalidInput(event, "a model call needs `model`, and `messages` or `input`");
  const workflow = await workflowRegistry.getWorkflow(run.workspace, run.workflowId);
  if (!workflow) throw new Error(`The workflow ${run.workflowId} of run ${run.runId} is gone`);
  const caller: Caller = {
    organization: workflow.organization,
    workspace: run.workspace,
    principal: run.userId ?? `workflow:${run.workflowId}`,
    principalType: "user",
    roles: [],
    admin: false,
    keyId: "workflow",
  };
  // The run's model calls are spans of the run's trace (executionTrace reads them back).
  const trace = run.traceId ? { traceId: run.traceId, parentSpanId: "", traceState: "", workflowName: workflow.name } : undefined;
  const ctx: CallContext = { caller, requestId: `wf-${randomUUID()}`, route: `workflow ${event.resource}`, trace };
  let body: unknown;
  try {
    const entries = Array.isArray(input.input) && input.input.every((entry) => isRecord(entry) && "role" in entry);
    if (input.messages !== undefined || entries) {
      const { input: conversation, ...rest } = input;
      const request = validated(ChatCompletionRequest, { ...rest, ...(entries ? { messages: conversation } : {}), stream: false }, "body");
      const answer = await completions.chat(ctx, request);
      if (answer.kind !== "answer") throw new Error("The model answered with a stream");
      body = answer.body;
    } else if (input.input !== undefined) {
      body = (await embed(ctx, validated(EmbeddingRequest, input, "body"))).body;
    } else {
      return invalidInput(event, "a model call needs `messages` (chat) or `input`");
    }
  } catch (error) {
    const known = asApiError(error);
    if (known.status >= 500 && !(error instanceof Error && "status" in error)) logger.error("workflow model call failed", { error: error as Error, runId: run.runId });
    const name = known.status === 429 ? "Model.RateLimited" : known.status < 500 ? "Model.InvalidRequest" : "Model.Error";
    await failTask(event.token, name, known.message);
    return;
  }
  await completeTask(event.token, body);
}

const CUSTOM_TASK_EVENTS = WORKFLOW_EVENT_TYPES.filter((type) => type.startsWith("CUSTOM_TASK_"));

/**
 * A custom event in the run's log: `type` is a CUSTOM_TASK_* event type, or the custom task's own type
 * (the event is then CUSTOM_TASK_IN_PROGRESS); `custom_task_id`, `custom_task_type` and `payload` as given,
 * else the input's other fields are the payload. The Task's output is its input.
 */
async function emitEvent(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input;
  if (!isRecord(input)) return invalidInput(event, "an event is an object with a `type`");
  const { type, custom_task_id, custom_task_type, payload, ...rest } = input;
  const eventType = (CUSTOM_TASK_EVENTS as readonly unknown[]).includes(type) ? (type as WorkflowEventType) : "CUSTOM_TASK_IN_PROGRESS";
  const taskType = typeof custom_task_type === "string" ? custom_task_type : typeof type === "string" && eventType === "CUSTOM_TASK_IN_PROGRESS" && type !== eventType ? type : "custom";
  await appendEvent(run, eventType, {
    custom_task_id: typeof custom_task_id === "string" ? custom_task_id : `${run.runId}:${event.state}`,
    custom_task_type: taskType,
    payload: jsonPayload(payload !== undefined ? payload : rest),
  });
  await completeTask(event.token, input);
}

/** The Task's input becomes the run's published state (what queries read); its output is its input. */
async function publishState(run: RunRecord, event: DispatchEvent): Promise<void> {
  await publishedStateStore.put({ workspace: run.workspace, runId: run.runId, state: event.input ?? null, publishedAtMs: Date.now() });
  await completeTask(event.token, event.input ?? null);
}

/**
 * A durable timer: `{until: ISO 8601}` or `{seconds}`. A time that is past completes at once; otherwise a
 * timer (`task-wake`) completes the token when it fires (the timer handler does), with the input as output.
 */
async function sleepUntil(_run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input;
  if (!isRecord(input)) return invalidInput(event, "give `until` (an ISO 8601 time) or `seconds`");
  let at: number;
  if (typeof input.until === "string" && !Number.isNaN(Date.parse(input.until))) at = Date.parse(input.until);
  else if (typeof input.seconds === "number" && Number.isFinite(input.seconds) && input.seconds >= 0) at = Date.now() + input.seconds * 1000;
  else return invalidInput(event, "give `until` (an ISO 8601 time) or `seconds` (a number ≥ 0)");
  if (at <= Date.now()) {
    await completeTask(event.token, input);
    return;
  }
  await armTimer({ name: `wake-${randomUUID()}`, at: new Date(at), payload: { kind: "task-wake", token: event.token, output: input } });
}
