import { resumeInput } from "../../domain/workflows/program/index.js";
import { describeRun, startRun } from "../../engine/workflow-machines.js";
import { runStore } from "../../store/workflows/runs.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { logger } from "../../observability/logger.js";
import { closeRun } from "./status.js";
import { rewind } from "./inbox.js";

export const LOST_RUN_MESSAGE = "The run's execution was lost and could not be resumed";

/**
 * Runs still open whose Step Functions execution no longer exists (the local engine keeps executions in
 * its process: a restart of `npm start` loses them) start again under the same run id, from their
 * checkpoint (the last top-level state entered, with its input) through the program's resume prelude, or
 * from their input when no state was entered yet. Activities the run had queued are re-bound to the new
 * tokens by the dispatcher, and results a worker delivered meanwhile are reused, so nothing that completed
 * runs twice. In the cloud executions outlive every process; the reconciler covers missed status changes.
 * Returns the run ids resumed and those that could not be (closed FAILED).
 */
export async function resumeLostRuns(options: { only?: (workspace: string) => boolean } = {}): Promise<{ resumed: string[]; failed: string[] }> {
  const open = (await runStore.listOpenRuns("~", 100_000)).filter((run) => options.only?.(run.workspace) ?? true);
  const resumed: string[] = [];
  const failed: string[] = [];
  for (const { workspace, runId } of open) {
    const run = await runStore.get(workspace, runId);
    if (!run || run.status !== "RUNNING" || (await describeRun(run.executionArn))) continue;
    const registration = await workflowRegistry.getRegistration(workspace, run.registrationId);
    try {
      if (!registration) throw new Error("its registration is gone");
      // Signals and updates the lost execution took after its checkpoint are taken again by the resumed one.
      await rewind(run, (run.checkpoint as { atMs?: number } | null)?.atMs ?? 0);
      await startRun(registration.versionArn, runId, run.checkpoint ? resumeInput(run.checkpoint.state, run.checkpoint.input) : (run.input as object));
      resumed.push(runId);
    } catch (error) {
      logger.error("workflow run not resumed", { runId, error: error as Error });
      await closeRun(run, "FAILED", { failure: { message: LOST_RUN_MESSAGE, type: "RunLost" } });
      failed.push(runId);
    }
  }
  return { resumed, failed };
}
