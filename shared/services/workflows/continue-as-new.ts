import { randomUUID } from "node:crypto";
import { jsonPayload } from "../../domain/workflows/events.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { logger } from "../../observability/logger.js";
import { startFollowingRun } from "./chain.js";
import { closeRun, writeEvent } from "./run-close.js";

/**
 * Continue-as-new (reference/workflows.md §2.3 D; docs/workflows.md): `platform:continue_as_new` recorded
 * the next input on the run; when the run then succeeds, it closes CONTINUED_AS_NEW with
 * WORKFLOW_EXECUTION_CONTINUED_AS_NEW (`new_execution_run_id`), and the same execution goes on as a new run
 * with that input and `continued_run_id` = the closed run.
 */
export async function continueAsNew(run: RunRecord, endTime: string): Promise<RunRecord | undefined> {
  const input = run.continueAsNew?.input ?? {};
  const nextRunId = randomUUID();
  const moved = await closeRun(run, "CONTINUED_AS_NEW", { endTime, result: null });
  if (!moved) return undefined;
  await writeEvent(moved, "WORKFLOW_EXECUTION_CONTINUED_AS_NEW", {
    task_id: moved.runId,
    new_execution_run_id: nextRunId,
    workflow_name: moved.workflowName,
    input: jsonPayload(input),
  });
  const next = await startFollowingRun(moved, { runId: nextRunId, input, attempt: 1, continuedRunId: moved.runId, previousStatus: "CONTINUED_AS_NEW" });
  if (!next) logger.warn("continue-as-new: the execution was taken before its next run started", { runId: moved.runId });
  return moved;
}
