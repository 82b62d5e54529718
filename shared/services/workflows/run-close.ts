import { randomUUID } from "node:crypto";
import { eventOf, jsonPayload, type WorkflowEventType } from "../../domain/workflows/events.js";
import type { ExecutionFailure, RunRecord } from "../../domain/workflows/records.js";
import type { WorkflowStatus } from "../../domain/workflows/statuses.js";
import { armTimer, disarmTimer } from "../../engine/timers.js";
import { logger } from "../../observability/logger.js";
import { eventStore } from "../../store/workflows/events.js";
import { runStore } from "../../store/workflows/runs.js";
import { reportToParent } from "./child-report.js";
import { scheduledRunClosed } from "./schedule-timers.js";
import { recordEngineLine } from "./engine-log.js";

/**
 * Closing a run (docs/workflows.md, "Status changes"): one conditional transition; only its winner disarms
 * the run's timers, writes the closing event and tells a waiting parent (a child execution's end).
 */

export const timeoutTimerName = (runId: string) => `timeout-${runId}`;
export const graceTimerName = (runId: string) => `cancel-${runId}`;

/** The event a run's close writes: none for TERMINATED and TIMED_OUT (the API's event types have none). */
const CLOSING_EVENT: Partial<Record<WorkflowStatus, WorkflowEventType>> = {
  COMPLETED: "WORKFLOW_EXECUTION_COMPLETED",
  FAILED: "WORKFLOW_EXECUTION_FAILED",
  CANCELED: "WORKFLOW_EXECUTION_CANCELED",
};

/**
 * How long after a run's close its readers (history, the event stream) wait for its closing event: written just
 * after the close, seconds later on a loaded machine. Past it the closer is taken to have died between its writes.
 */
export const CLOSING_EVENT_WAIT_MS = 30_000;

/** The event the close of a run in `status` writes, if any. */
export const closingEventOf = (status: WorkflowStatus): WorkflowEventType | undefined => CLOSING_EVENT[status];

/** The statuses whose close writes an event: a stream that sees the run closed in one of these waits for it. */
export const closesWithEvent = (status: WorkflowStatus): boolean => CLOSING_EVENT[status] !== undefined || status === "CONTINUED_AS_NEW";

export async function disarmRunTimers(runId: string): Promise<void> {
  for (const name of [timeoutTimerName(runId), graceTimerName(runId)]) {
    try {
      await disarmTimer(name);
    } catch (error) {
      // A timer left armed finds the run closed and does nothing.
      logger.warn("workflow timer not disarmed", { name, error: error as Error });
    }
  }
}

/** Appends an event of `run`; a failure is logged, never thrown (the run's status is already written). */
export async function writeEvent(run: RunRecord, type: WorkflowEventType, attributes: Record<string, unknown>): Promise<void> {
  try {
    const event = eventOf(run, type, attributes, { id: randomUUID(), nowMs: Date.now() });
    // The engine's log line goes beside the event, not after it: it never fails the event (nor delays it).
    await Promise.all([eventStore.append(run.workspace, event), recordEngineLine(run, event)]);
  } catch (error) {
    logger.error("workflow event not written", { runId: run.runId, type, error: error as Error });
  }
}

/**
 * Closes `run` as `to` when it is still open; undefined when another writer closed it first (then nothing
 * else happens here). The winner disarms the run's timers and writes the closing event.
 */
export async function closeRun(
  run: Pick<RunRecord, "workspace" | "runId">,
  to: WorkflowStatus,
  fields: { result?: unknown; failure?: ExecutionFailure; endTime?: string; reason?: string } = {},
): Promise<RunRecord | undefined> {
  const moved = await runStore.transition(run.workspace, run.runId, to, {
    endTime: fields.endTime ?? new Date().toISOString(),
    ...(fields.result !== undefined ? { result: fields.result } : {}),
    ...(fields.failure ? { failure: fields.failure } : {}),
  });
  if (!moved) return undefined;
  // The closing event first: readers that see the run closed wait for it (history, the event stream).
  const type = CLOSING_EVENT[to];
  if (type === "WORKFLOW_EXECUTION_COMPLETED") await writeEvent(moved, type, { task_id: moved.runId, result: jsonPayload(moved.result), attempt: moved.attempt });
  if (type === "WORKFLOW_EXECUTION_FAILED") await writeEvent(moved, type, { task_id: moved.runId, failure: { message: moved.failure?.message ?? "The workflow failed" }, attempt: moved.attempt });
  if (type === "WORKFLOW_EXECUTION_CANCELED") await writeEvent(moved, type, { task_id: moved.runId, reason: fields.reason ?? null, attempt: moved.attempt });
  await disarmRunTimers(run.runId);
  await reportToParent(moved);
  if (moved.hasChildren) await armStopChildren(moved, to);
  // A schedule's execution that ended (not a run followed by its continue-as-new or retry): pause_on_failure,
  // and the fire it buffered behind this one (docs/workflows.md, "Schedules").
  if (moved.scheduleId && (await executionEndsWith(moved))) await scheduledRunClosed(moved);
  return moved;
}


/** A run that started children stops those still open through a timer (children.ts): durable, and retried if it fails. */
async function armStopChildren(run: RunRecord, to: WorkflowStatus): Promise<void> {
  const payload = { kind: "stop-children", workspace: run.workspace, runId: run.runId, how: to === "CANCELED" ? "cancel" : "terminate" };
  try {
    await armTimer({ name: `children-${run.runId}`, at: new Date(), payload });
  } catch (error) {
    logger.error("children of a closed workflow run not stopped", { runId: run.runId, error: error as Error });
  }
}

/** Whether `run` is its execution's last run: no continue-as-new or retry follows it. */
async function executionEndsWith(run: RunRecord): Promise<boolean> {
  if (run.status === "CONTINUED_AS_NEW") return false;
  const execution = await runStore.getExecution(run.workspace, run.executionId);
  return execution?.latestRunId === run.runId;
}
