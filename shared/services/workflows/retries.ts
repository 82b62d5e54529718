import type { ExecutionFailure, RunRecord } from "../../domain/workflows/records.js";
import { retryDelaySeconds, retryPolicyOf } from "../../domain/workflows/retry-policy.js";
import { armTimer, disarmTimer } from "../../engine/timers.js";
import { logger } from "../../observability/logger.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { runStore } from "../../store/workflows/runs.js";
import { startFollowingRun } from "./chain.js";
import { closeRun, disarmRunTimers, writeEvent } from "./run-close.js";

/**
 * Workflow-level retries (reference/workflows.md §2.3 E, decision 20). A run that FAILS while its
 * registration's `retry_policy` has attempts left moves to RETRYING_AFTER_ERROR (the execution with it),
 * writes WORKFLOW_EXECUTION_FAILED with its attempt, and arms a timer on the timer port; when it fires, a
 * new run of the same execution starts with the same input and `attempt + 1`, and the failed run closes
 * FAILED (quietly: its event is written). The execution is RETRYING_AFTER_ERROR until a run ends terminally.
 */
export const retryTimerName = (runId: string) => `retry-${runId}`;

export type RetryTimerPayload = { kind: "workflow-retry"; workspace: string; runId: string };

/** Moves a failed run to RETRYING_AFTER_ERROR and arms its retry; undefined when it is not retried (then it closes FAILED). */
export async function retryAfterFailure(run: RunRecord, failure: ExecutionFailure): Promise<RunRecord | undefined> {
  const registration = await workflowRegistry.getRegistration(run.workspace, run.registrationId);
  const policy = retryPolicyOf(registration?.definition);
  const delay = policy && retryDelaySeconds(policy, run.attempt, failure.type);
  if (delay === undefined) return undefined;
  const execution = await runStore.getExecution(run.workspace, run.executionId);
  const at = Date.now() + delay * 1000;
  // A retry due after the execution's deadline would only time out: the run fails now.
  if (execution?.deadlineMs && at >= execution.deadlineMs) return undefined;
  const moved = await runStore.transition(run.workspace, run.runId, "RETRYING_AFTER_ERROR", { failure });
  if (!moved) return undefined;
  await writeEvent(moved, "WORKFLOW_EXECUTION_FAILED", { task_id: moved.runId, failure: { message: failure.message }, attempt: moved.attempt });
  const payload: RetryTimerPayload = { kind: "workflow-retry", workspace: run.workspace, runId: run.runId };
  try {
    await armTimer({ name: retryTimerName(run.runId), at: new Date(at), payload });
  } catch (error) {
    // Without its timer nothing would ever retry it: it fails now rather than waiting for ever.
    logger.error("workflow retry not armed", { runId: run.runId, error: error as Error });
    return (await closeRun(moved, "FAILED", { failure })) ?? moved;
  }
  return moved;
}

/** The retry timer fired: the next attempt starts (unless the run was stopped meanwhile or the deadline passed). */
export async function onRetryTimer(payload: RetryTimerPayload): Promise<void> {
  const run = await runStore.get(payload.workspace, payload.runId);
  if (!run || run.status !== "RETRYING_AFTER_ERROR") return;
  const execution = await runStore.getExecution(run.workspace, run.executionId);
  if (execution?.deadlineMs && Date.now() >= execution.deadlineMs) {
    await closeRun(run, "TIMED_OUT");
    return;
  }
  const next = await startFollowingRun(run, { input: run.input, attempt: run.attempt + 1, continuedRunId: null, previousStatus: "RETRYING_AFTER_ERROR" });
  if (!next) {
    logger.warn("workflow retry not started: the execution moved on", { runId: run.runId });
    return;
  }
  // The failed attempt closes FAILED; its event was written when it failed, and the execution follows the new run.
  if (await runStore.transition(run.workspace, run.runId, "FAILED", { endTime: new Date().toISOString() })) await disarmRunTimers(run.runId);
}

/**
 * Terminate or cancel of an execution waiting for a retry: no Step Functions execution runs, so the waiting
 * run closes at once as asked and its retry timer is disarmed.
 */
export async function stopRetrying(run: RunRecord, to: "TERMINATED" | "CANCELED"): Promise<boolean> {
  const closed = await closeRun(run, to, to === "CANCELED" ? { reason: "Canceled through the API" } : {});
  if (!closed) return false;
  try {
    await disarmTimer(retryTimerName(run.runId));
  } catch (error) {
    logger.warn("workflow timer not disarmed", { name: retryTimerName(run.runId), error: error as Error });
  }
  return true;
}
