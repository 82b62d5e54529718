import { randomUUID } from "node:crypto";
import { jsonPayload } from "../../domain/workflows/events.js";
import { registeredByOut } from "../../domain/workflows/ownership.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import type { WorkflowStatus } from "../../domain/workflows/statuses.js";
import { executionArnOf } from "../../engine/machines.js";
import { armTimer } from "../../engine/timers.js";
import { startRun } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { runStore } from "../../store/workflows/runs.js";
import { closeRun, timeoutTimerName, writeEvent } from "./run-close.js";

/**
 * Starting a run that is already recorded (docs/workflows.md, "Executions" and "Continue-as-new, retries,
 * child workflows"): its STARTED event, its execution timeout, and the Step Functions execution. A start
 * that throws closes the run FAILED, saying so: nothing stays RUNNING without an execution.
 */
export async function launchRun(
  record: RunRecord,
  launch: { versionArn: string; displayName: string | null; deadlineMs: number | null; startInput?: object; failure?: string },
): Promise<RunRecord> {
  await writeEvent(record, "WORKFLOW_EXECUTION_STARTED", {
    task_id: record.runId,
    workflow_name: record.workflowName,
    display_name: launch.displayName,
    input: jsonPayload(record.input),
    attempt: record.attempt,
    // Extension (decision 0042): whose program, and so whose connector rights, this run has.
    registered_by: registeredByOut(record),
  });
  try {
    if (launch.deadlineMs !== null) {
      await armTimer({ name: timeoutTimerName(record.runId), at: new Date(Math.max(launch.deadlineMs, Date.now())), payload: { kind: "execution-timeout", workspace: record.workspace, runId: record.runId } });
    }
    const executionArn = await startRun(launch.versionArn, record.runId, launch.startInput ?? (record.input as object));
    if (executionArn !== record.executionArn) await runStore.setExecutionArn(record.workspace, record.runId, executionArn);
    return record;
  } catch (error) {
    logger.error("workflow execution did not start", { runId: record.runId, error: error as Error });
    const failed = await closeRun(record, "FAILED", { failure: { message: launch.failure ?? "The execution could not be started; execute the workflow again" } });
    return failed ?? (await runStore.get(record.workspace, record.runId)) ?? record;
  }
}

/**
 * The next run of `previous`'s execution (continue-as-new, a retry): the same registration, execution,
 * lineage and trace, a new run id, `firstExecutionRunId` anchored to the chain's first run. Written only
 * while `previous` is the execution's latest run and in `previousStatus`; undefined when it is not (another
 * writer followed it, or the id was executed again).
 */
export async function startFollowingRun(
  previous: RunRecord,
  next: { runId?: string; input: unknown; attempt: number; continuedRunId: string | null; previousStatus: WorkflowStatus },
): Promise<RunRecord | undefined> {
  const registration = await workflowRegistry.getRegistration(previous.workspace, previous.registrationId);
  if (!registration) {
    logger.warn("next run not started: the registration is gone", { runId: previous.runId });
    return undefined;
  }
  const execution = await runStore.getExecution(previous.workspace, previous.executionId);
  const workflow = await workflowRegistry.getWorkflow(previous.workspace, previous.workflowId);
  const runId = next.runId ?? randomUUID();
  const record: RunRecord = {
    ...previous,
    runId,
    status: "RUNNING",
    input: next.input ?? {},
    result: null,
    failure: null,
    startTime: new Date().toISOString(),
    endTime: null,
    executionArn: executionArnOf(registration.versionArn, runId),
    intent: null,
    cancelRequested: false,
    checkpoint: null,
    attempt: next.attempt,
    continuedRunId: next.continuedRunId,
    firstExecutionRunId: previous.firstExecutionRunId,
    continueAsNew: null,
    parentTask: previous.parentTask ?? null,
    traceId: previous.traceId ?? null,
    registeredBy: registration.registeredBy ?? null,
  };
  const deadlineMs = execution?.deadlineMs ?? null;
  if (!(await runStore.start(record, deadlineMs, { runId: previous.runId, status: next.previousStatus }))) return undefined;
  return launchRun(record, { versionArn: registration.versionArn, displayName: workflow?.displayName ?? null, deadlineMs });
}
