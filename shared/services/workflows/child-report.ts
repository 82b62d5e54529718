import type { RunRecord } from "../../domain/workflows/records.js";
import type { WorkflowStatus } from "../../domain/workflows/statuses.js";
import { completeTask, failTask } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import { runStore } from "../../store/workflows/runs.js";

/**
 * A child execution's end reaches the parent's `platform:child_workflow` Task (decision 21): COMPLETED
 * completes it with the child's result; any other end fails it with `Workflow.Child<Status>` and a JSON
 * cause `{execution_id, run_id, status, failure}` the program's Catch can read. A run that continues as new,
 * or a failed attempt a retry follows, is not the child's end.
 */
export const CHILD_ERRORS: Partial<Record<WorkflowStatus, string>> = {
  FAILED: "Workflow.ChildFailed",
  CANCELED: "Workflow.ChildCanceled",
  TERMINATED: "Workflow.ChildTerminated",
  TIMED_OUT: "Workflow.ChildTimedOut",
};

export async function reportToParent(run: RunRecord): Promise<void> {
  const parent = run.parentTask;
  if (!parent || run.status === "CONTINUED_AS_NEW") return;
  try {
    const execution = await runStore.getExecution(run.workspace, run.executionId);
    if (execution && execution.latestRunId !== run.runId) return;
    const delivered =
      run.status === "COMPLETED"
        ? await completeTask(parent.token, run.result ?? null)
        : await failTask(
            parent.token,
            CHILD_ERRORS[run.status] ?? "Workflow.ChildFailed",
            JSON.stringify({ execution_id: run.executionId, run_id: run.runId, status: run.status, failure: run.failure ?? null }),
          );
    if (!delivered) logger.info("child workflow ended after its parent stopped waiting", { runId: run.runId, parentRunId: parent.runId });
  } catch (error) {
    // The child's close is written; the parent's Task is left to its own timeout (its program's TimeoutSeconds).
    logger.error("child workflow end not reported to its parent", { runId: run.runId, parentRunId: parent.runId, error: error as Error });
  }
}
