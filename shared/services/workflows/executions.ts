import { randomUUID } from "node:crypto";
import { registeredByOut } from "../../domain/workflows/ownership.js";
import { InvalidPageToken, PayloadTooLarge, Unprocessable } from "../../domain/errors.js";
import type { Caller } from "../../domain/caller.js";
import { keyFits, keyTooLong, storageProblem, storageRefusal } from "../../domain/storage-limits.js";
import type { RegistrationRecord, RunRecord, WorkflowRecord } from "../../domain/workflows/records.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { traceIdOf } from "../../domain/workflows/trace-context.js";
import { executionArnOf } from "../../engine/machines.js";
import { armTimer } from "../../engine/timers.js";
import { stopRun } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import type { ExecutionOut, RunListQuery, WorkflowExecutionRequest } from "../../schemas/workflows.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { runStore } from "../../store/workflows/runs.js";
import { taskStore } from "../../store/workflows/tasks.js";
import { schemaIssues } from "./executions-schema.js";
import { launchRun } from "./chain.js";
import { stopRetrying } from "./retries.js";
import { closeRun, graceTimerName } from "./run-close.js";
import { assertNotArchived, ExecutionAlreadyStarted, ExecutionNotRunning, findWorkflow, getRegistration, routeExecution, WorkflowNotFound } from "./workflows.js";
import * as z from "zod";

/**
 * Executions (docs/workflows.md, "Executions"): start one on a registration's published program, read
 * them and their runs, stop them (terminate: at once; cancel: the workers are told, then a grace period).
 */

/**
 * API Gateway's integration timeout is 29 s: `wait_for_result` waits at most this long, then answers with
 * the execution as it is (still RUNNING) rather than a 504.
 */
export const WAIT_FOR_RESULT_MAX_SECONDS = 25;

/** Step Functions takes at most 256 KiB of input per execution. */
export const MAX_INPUT_BYTES = 256 * 1024;

/** How long a cancel lets a worker's running activity see `cancel_requested` before the run is stopped. */
export const cancelGraceSeconds = (): number => {
  const raw = Number(process.env.WORKFLOW_CANCEL_GRACE_SECONDS ?? "");
  return Number.isFinite(raw) && raw >= 0 && process.env.WORKFLOW_CANCEL_GRACE_SECONDS !== "" && process.env.WORKFLOW_CANCEL_GRACE_SECONDS !== undefined ? raw : 10;
};

export function toExecutionOut(run: RunRecord, options: { searchKeys?: boolean } = {}): ExecutionOut {
  const end = run.endTime ? Date.parse(run.endTime) : null;
  return {
    workflow_name: run.workflowName,
    workflow_id: run.workflowId,
    deployment_name: run.deploymentName,
    execution_id: run.executionId,
    parent_execution_id: run.parentExecutionId,
    root_execution_id: run.rootExecutionId,
    run_id: run.runId,
    user_id: run.userId,
    status: run.status,
    start_time: run.startTime,
    end_time: run.endTime,
    total_duration_ms: end === null ? null : Math.max(0, Math.round(end - Date.parse(run.startTime))),
    registered_by: registeredByOut(run),
    result: run.result ?? null,
    ...(options.searchKeys ? { search_keys: {} } : {}),
  };
}

function checkInput(registration: RegistrationRecord, input: Record<string, unknown>, executionId: string): void {
  const issues = schemaIssues(registration.definition.input_schema, input, ["body", "input"]);
  if (issues.length) throw new Unprocessable(issues);
  const bytes = Buffer.byteLength(JSON.stringify(input));
  if (bytes > MAX_INPUT_BYTES) throw new PayloadTooLarge(`The input is ${bytes} bytes; an execution takes at most ${MAX_INPUT_BYTES}`, "input_too_large");
  // As the STARTED event stores it (the deepest copy).
  const problem = storageProblem({ event: { attributes: { input: { value: input } } } });
  if (problem) throw storageRefusal(problem);
  // The id keys the execution and, as the root, its events' index entries.
  if (!keyFits(`EXEC#${executionId}`, "sort") || Buffer.byteLength(executionId) > 900) throw keyTooLong("execution_id");
}

export type ExecuteAnswer = { kind: "execution"; execution: ExecutionOut } | { kind: "result"; workflow_name: string; execution_id: string; result: unknown };

/** What execute answers on the wire: the execution, or `{workflow_name, execution_id, result}` for a waited, completed one. */
export const answerOf = (answer: ExecuteAnswer) =>
  answer.kind === "result" ? { workflow_name: answer.workflow_name, execution_id: answer.execution_id, result: answer.result } : answer.execution;

/** POST /v1/workflows/{workflow_identifier}/execute. */
export async function execute(caller: Caller, identifier: string, request: WorkflowExecutionRequest): Promise<ExecuteAnswer> {
  const workflow = await findWorkflow(caller, identifier);
  const registration = await routeExecution(caller, workflow, request.deployment_name ?? request.task_queue ?? null);
  return run(caller, workflow, registration, request);
}

/** POST /v1/workflows/registrations/{workflow_registration_id}/execute: pinned to that registration. */
export async function executeRegistration(caller: Caller, registrationId: string, request: WorkflowExecutionRequest): Promise<ExecuteAnswer> {
  const { registration, workflow } = await getRegistration(caller, registrationId);
  return run(caller, workflow, registration, request);
}

/** Where an execution sits among others: a child's parent and root, and the parent's Task that waits for it. */
export type Lineage = Pick<RunRecord, "parentExecutionId" | "rootExecutionId" | "parentTask">;

/**
 * A child execution (`platform:child_workflow`): routed and checked as an execute call of the parent's user,
 * with the parent's lineage and the parent's waiting Task on the record before it starts, so its end always
 * finds the parent (decision 21).
 */
export async function startChild(
  caller: Pick<Caller, "workspace" | "principal">,
  identifier: string,
  request: Pick<WorkflowExecutionRequest, "execution_id" | "input" | "deployment_name"> & { traceId: string | null },
  lineage: Lineage,
): Promise<void> {
  const workflow = await findWorkflow(caller, identifier);
  const registration = await routeExecution(caller, workflow, request.deployment_name ?? null);
  // A start that fails closes the child FAILED, which fails the parent's Task.
  await run(caller, workflow, registration, { ...request, wait_for_result: false, force_new_trace: false }, { lineage, traceId: request.traceId });
}

/**
 * A schedule's fire (docs/workflows.md, "Schedules"): starts `executionId` of the workflow on the pinned
 * registration, else routed as execute routes, with `schedule_id` on its run and events; never waits.
 */
export async function startScheduled(
  caller: Pick<Caller, "workspace" | "principal">,
  target: { workflowId: string; registrationId: string | null; deploymentName: string | null },
  request: { input: Record<string, unknown>; executionId: string; scheduleId: string },
): Promise<ExecutionOut> {
  let workflow: WorkflowRecord;
  let registration: RegistrationRecord;
  if (target.registrationId) ({ workflow, registration } = await getRegistration(caller, target.registrationId));
  else {
    workflow = await findWorkflow(caller, target.workflowId);
    registration = await routeExecution(caller, workflow, target.deploymentName);
  }
  const answer = await run(caller, workflow, registration, { input: request.input, execution_id: request.executionId } as WorkflowExecutionRequest, { scheduleId: request.scheduleId });
  return (answer as Extract<ExecuteAnswer, { kind: "execution" }>).execution;
}

async function run(
  caller: Pick<Caller, "workspace" | "principal">,
  workflow: WorkflowRecord,
  registration: RegistrationRecord,
  request: WorkflowExecutionRequest,
  started: { lineage?: Lineage; traceId?: string | null; scheduleId?: string } = {},
): Promise<ExecuteAnswer> {
  // Every new execution comes through here (execute, a pinned registration, a schedule's fire, a child).
  assertNotArchived(workflow);
  const input = request.input ?? {};
  const executionId = request.execution_id ?? randomUUID();
  checkInput(registration, input, executionId);

  const runId = randomUUID();
  const nowMs = Date.now();
  const timeout = registration.definition.execution_timeout;
  const deadlineMs = typeof timeout === "number" && timeout > 0 ? nowMs + timeout * 1000 : null;
  const record: RunRecord = {
    ...openRun(registration, runId, nowMs),
    workspace: caller.workspace,
    executionId,
    rootExecutionId: started.lineage?.rootExecutionId ?? executionId,
    parentExecutionId: started.lineage?.parentExecutionId ?? null,
    workflowId: workflow.id,
    workflowName: workflow.name,
    userId: caller.principal,
    input,
    checkpoint: null,
    attempt: 1,
    scheduleId: started.scheduleId ?? null,
    continuedRunId: null,
    firstExecutionRunId: runId,
    ...(started.lineage?.parentTask ? { parentTask: started.lineage.parentTask } : {}),
    traceId: started.traceId ?? traceIdOf(request),
  };
  if (!(await runStore.start(record, deadlineMs))) throw new ExecutionAlreadyStarted(executionId);
  // A start that fails closes the run FAILED: the recorded execution says it never ran, rather than a 500 that leaves a RUNNING run nothing runs.
  const launched = await launchRun(record, { versionArn: registration.versionArn, displayName: workflow.displayName, deadlineMs });
  if (launched.status !== "RUNNING") return { kind: "execution", execution: toExecutionOut(launched) };

  if (!request.wait_for_result) return { kind: "execution", execution: toExecutionOut(record) };
  const waited = await waitForClose(caller.workspace, executionId, runId, Math.min(request.timeout_seconds ?? WAIT_FOR_RESULT_MAX_SECONDS, WAIT_FOR_RESULT_MAX_SECONDS) * 1000);
  if (waited?.status === "COMPLETED") return { kind: "result", workflow_name: waited.workflowName, execution_id: executionId, result: waited.result ?? null };
  return { kind: "execution", execution: toExecutionOut(waited ?? record) };
}

/** The fields of a new open run of `registration`; its execution ARN is known before the start, so a stop racing the start can name it. */
export function openRun(registration: Pick<RegistrationRecord, "id" | "deploymentName" | "versionArn" | "registeredBy">, runId: string, nowMs: number) {
  return {
    runId,
    registrationId: registration.id,
    // Whose program this run runs, and so whose rights its connector steps have (decision 0042).
    registeredBy: registration.registeredBy ?? null,
    deploymentName: registration.deploymentName,
    status: "RUNNING" as const,
    result: null,
    failure: null,
    startTime: new Date(nowMs).toISOString(),
    endTime: null,
    executionArn: executionArnOf(registration.versionArn, runId),
    intent: null,
    cancelRequested: false,
  };
}

/**
 * Polls the execution's latest run (consistent reads, backing off from 50 ms to 500 ms) until it closes or
 * `ms` pass: a run that continued as new, or waits for its retry, is followed by the next one.
 */
async function waitForClose(workspace: string, executionId: string, runId: string, ms: number): Promise<RunRecord | undefined> {
  // A monotonic clock: the wall clock may be moved (or, in tests, stand still).
  const deadline = performance.now() + ms;
  let delay = 50;
  for (;;) {
    const latest = (await runStore.getExecution(workspace, executionId))?.latestRunId ?? runId;
    const current = await runStore.get(workspace, latest);
    if (!current || (isClosed(current.status) && current.status !== "CONTINUED_AS_NEW") || performance.now() >= deadline) return current;
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - performance.now()))));
    delay = Math.min(500, delay * 2);
  }
}

/** An execution's latest run. */
export async function latestRun(caller: Pick<Caller, "workspace">, executionId: string): Promise<RunRecord> {
  const execution = await runStore.getExecution(caller.workspace, executionId);
  const run = execution && (await runStore.get(caller.workspace, execution.latestRunId));
  if (!run) throw new WorkflowNotFound("Workflow execution", executionId);
  return run;
}

export async function getRun(caller: Pick<Caller, "workspace">, runId: string): Promise<RunRecord> {
  const run = await runStore.get(caller.workspace, runId);
  if (!run) throw new WorkflowNotFound("Workflow run", runId);
  return run;
}

/** POST …/terminate: the run is stopped at once and is TERMINATED (its status change later finds it done). */
export async function terminate(caller: Pick<Caller, "workspace">, executionId: string): Promise<void> {
  const run = await latestRun(caller, executionId);
  if (isClosed(run.status)) throw new ExecutionNotRunning(executionId, run.status);
  if (run.status === "RETRYING_AFTER_ERROR" && (await stopRetrying(run, "TERMINATED"))) return;
  if (!(await runStore.setIntent(caller.workspace, run.runId, { intent: "terminate" }))) {
    const now = await latestRun(caller, executionId);
    throw new ExecutionNotRunning(executionId, now.status);
  }
  await stopRun(run.executionArn, "Workflow.Terminated", "Terminated through the API");
  await closeRun(run, "TERMINATED");
}

/**
 * POST …/cancel: graceful. The run is marked `cancelRequested` (workers see it in their heartbeat replies);
 * with an activity in a worker's hands it is stopped after the grace period (a timer), otherwise at once.
 * It ends CANCELED either way.
 */
export async function cancel(caller: Pick<Caller, "workspace">, executionId: string): Promise<void> {
  const run = await latestRun(caller, executionId);
  if (isClosed(run.status)) throw new ExecutionNotRunning(executionId, run.status);
  if (run.status === "RETRYING_AFTER_ERROR" && (await stopRetrying(run, "CANCELED"))) return;
  if (!(await runStore.setIntent(caller.workspace, run.runId, { intent: "cancel", cancelRequested: true }))) {
    const now = await latestRun(caller, executionId);
    throw new ExecutionNotRunning(executionId, now.status);
  }
  const grace = cancelGraceSeconds();
  // A run whose activities no worker holds has nothing to hand the cancel to: it is stopped at once.
  if (grace > 0 && (await taskStore.hasClaimed(caller.workspace, run.runId))) {
    await armTimer({ name: graceTimerName(run.runId), at: new Date(Date.now() + grace * 1000), payload: { kind: "cancel-grace", workspace: caller.workspace, runId: run.runId } });
    return;
  }
  await stopRun(run.executionArn, "Workflow.Canceled", "Canceled through the API");
  await closeRun(run, "CANCELED", { reason: "Canceled through the API" });
}

/** Batch terminate/cancel: every id answered on its own, never failing as a whole. */
export async function batch(
  caller: Pick<Caller, "workspace">,
  ids: string[],
  action: (caller: Pick<Caller, "workspace">, id: string) => Promise<void>,
): Promise<Record<string, { status: "success" | "failure"; error: string | null }>> {
  const results: Record<string, { status: "success" | "failure"; error: string | null }> = {};
  const unique = [...new Set(ids)];
  // A few at a time: each is a handful of reads and writes and one Step Functions call.
  for (let i = 0; i < unique.length; i += 10) {
    await Promise.all(
      unique.slice(i, i + 10).map(async (id) => {
        try {
          await action(caller, id);
          results[id] = { status: "success", error: null };
        } catch (error) {
          if (!(error instanceof Error && "status" in error && typeof error.status === "number" && error.status < 500)) logger.error("batch execution action failed", { id, error: error as Error });
          results[id] = { status: "failure", error: error instanceof Error && "status" in error && Number(error.status) < 500 ? error.message : "An error occurred" };
        }
      }),
    );
  }
  return results;
}

const runCursor = z.strictObject({ b: z.enum(["start", "end"]), o: z.enum(["asc", "desc"]), r: z.uuid(), k: z.string().min(1).max(600) });

/** GET /v1/workflows/runs: by start (or end: closed runs only), newest first unless asked, filtered, paged by a token. */
export async function listRuns(caller: Pick<Caller, "workspace">, query: RunListQuery): Promise<{ runs: RunRecord[]; nextPageToken: string | null }> {
  const by = query.sort_by === "end_time" ? "end" : "start";
  const position = query.next_page_token === undefined ? undefined : readCursor(query.next_page_token, runCursor, "next_page_token");
  if (position && (position.b !== by || position.o !== query.order)) throw new InvalidPageToken("next_page_token");
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const add = (condition: string, name: Record<string, string>, value: Record<string, unknown>) => {
    conditions.push(condition);
    Object.assign(names, name);
    Object.assign(values, value);
  };
  if (query.workflow_identifier) {
    const workflow = await workflowRegistry.findWorkflow(caller.workspace, query.workflow_identifier);
    if (!workflow) return { runs: [], nextPageToken: null };
    add("#wf = :wf", { "#wf": "workflowId" }, { ":wf": workflow.id });
  }
  if (query.root_execution_id) add("#root = :root", { "#root": "rootExecutionId" }, { ":root": query.root_execution_id });
  if (query.status?.length) {
    const statuses = [...new Set(query.status)];
    add(`#st IN (${statuses.map((_, i) => `:st${i}`).join(", ")})`, { "#st": "status" }, Object.fromEntries(statuses.map((s, i) => [`:st${i}`, s])));
  }
  if (query.deployment_name) add("#dep = :dep", { "#dep": "deploymentName" }, { ":dep": query.deployment_name });
  if (query.user_id) add("#user = :user", { "#user": "userId" }, { ":user": query.user_id });
  if (query.search) add("(contains(#eid, :q) OR contains(#wn, :q))", { "#eid": "executionId", "#wn": "workflowName" }, { ":q": query.search });
  // Bounds on the index's own time are key conditions; on the other time, filters.
  const bounds = by === "start" ? { after: query.start_time_after, before: query.start_time_before } : { after: query.end_time_after, before: query.end_time_before };
  if (by === "end") {
    if (query.start_time_after) add("#start >= :sa", { "#start": "startTime" }, { ":sa": query.start_time_after });
    if (query.start_time_before) add("#start <= :sb", { "#start": "startTime" }, { ":sb": query.start_time_before });
  } else {
    if (query.end_time_after) add("#end >= :ea", { "#end": "endTime" }, { ":ea": query.end_time_after });
    if (query.end_time_before) add("#end <= :eb", { "#end": "endTime" }, { ":eb": query.end_time_before });
  }
  const page = await runStore.listRuns(caller.workspace, {
    by,
    order: query.order,
    limit: query.page_size,
    from: bounds.after ? isoKey(bounds.after) : undefined,
    to: bounds.before ? `${isoKey(bounds.before)}#~` : undefined,
    after: position ? { runId: position.r, key: position.k } : undefined,
    filter: conditions.length ? { FilterExpression: conditions.join(" AND "), ExpressionAttributeNames: names, ExpressionAttributeValues: values } : undefined,
  });
  return { runs: page.items, nextPageToken: page.last ? encodeCursor({ b: by, o: query.order, r: page.last.runId, k: page.last.key }) : null };
}

/** Times as the index keys hold them (toISOString's form), so a bound compares as a time. */
const isoKey = (time: string) => new Date(time).toISOString();
