import { isClosed } from "../../domain/workflows/statuses.js";
import { childStore } from "../../store/workflows/run-chain.js";
import { runStore } from "../../store/workflows/runs.js";
import { cancel, terminate } from "./executions.js";

/**
 * A parent's close reaches its children (decision 21): when a run that started children closes, a timer
 * (`children-<runId>`, armed by its close: durable, retried by the timer port) stops every child of that run
 * still open: canceled when the parent was canceled, terminated otherwise (Temporal's default parent close
 * policy). A child that already ended, or that another run now waits for, is left alone.
 */
export type StopChildrenPayload = { kind: "stop-children"; workspace: string; runId: string; how: "cancel" | "terminate" };

export async function stopChildren(payload: StopChildrenPayload): Promise<void> {
  const caller = { workspace: payload.workspace };
  for (const executionId of await childStore.list(payload.workspace, payload.runId)) {
    const execution = await runStore.getExecution(payload.workspace, executionId);
    const child = execution && (await runStore.get(payload.workspace, execution.latestRunId));
    if (!child || isClosed(child.status) || child.parentTask?.runId !== payload.runId) continue;
    try {
      await (payload.how === "cancel" ? cancel : terminate)(caller, executionId);
    } catch (error) {
      // Closed meanwhile (409): nothing left to stop.
      if (!(error instanceof Error && "status" in error && error.status === 409)) throw error;
    }
  }
}
