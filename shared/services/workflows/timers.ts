import { completeTask, stopRun } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import { runStore } from "../../store/workflows/runs.js";
import { stopChildren, type StopChildrenPayload } from "./children.js";
import { onRetryTimer, type RetryTimerPayload } from "./retries.js";
import { closeRun } from "./status.js";

/**
 * What the workflow timers do when they fire (the timer port, shared/engine/timers.ts, delivers the armed
 * payload as the event). A timer that finds its run closed does nothing: timers are disarmed on close,
 * but one may fire in between.
 */
export type WorkflowTimerPayload =
  /** The execution's `execution_timeout` has passed: stop it, TIMED_OUT. */
  | { kind: "execution-timeout"; workspace: string; runId: string }
  /** A cancel's grace period is over: stop it, CANCELED. */
  | { kind: "cancel-grace"; workspace: string; runId: string }
  /** `platform:sleep_until` is due: complete the waiting task. */
  | { kind: "task-wake"; token: string; output?: unknown }
  /** A workflow-level retry is due: the execution's next attempt starts (retries.ts). */
  | RetryTimerPayload
  /** A parent run closed: its children still open are stopped (children.ts). */
  | StopChildrenPayload;

export async function onTimer(payload: WorkflowTimerPayload): Promise<void> {
  switch (payload.kind) {
    case "execution-timeout": {
      const run = await runStore.get(payload.workspace, payload.runId);
      if (!run || run.status !== "RUNNING") return;
      // The intent first, so the ABORTED status change reads as a timeout whoever writes the close.
      if (!(await runStore.setIntent(run.workspace, run.runId, { intent: "timeout" }))) return;
      await stopRun(run.executionArn, "Workflow.TimedOut", "The execution ran past its execution_timeout");
      await closeRun(run, "TIMED_OUT");
      return;
    }
    case "cancel-grace": {
      const run = await runStore.get(payload.workspace, payload.runId);
      if (!run || run.status !== "RUNNING") return;
      await stopRun(run.executionArn, "Workflow.Canceled", "Canceled through the API");
      await closeRun(run, "CANCELED", { reason: "Canceled through the API" });
      return;
    }
    case "task-wake": {
      if (!(await completeTask(payload.token, payload.output ?? {}))) logger.info("sleep_until woke a task that is over");
      return;
    }
    case "workflow-retry":
      return onRetryTimer(payload);
    case "stop-children":
      return stopChildren(payload);
    default:
      // Its kind only: a timer's payload may carry a task token (task-wake), which no log line may hold.
      logger.warn("unknown workflow timer", { kind: String((payload as { kind?: unknown }).kind) });
  }
}
