import type { DispatchEvent } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { completeTask, failTask } from "../../../engine/workflow-machines.js";
import { inboxStore } from "../../../store/workflows/inbox.js";

/**
 * `platform:complete_update` `{update_id, result}` or `{update_id, error: {message, type?}}`: records the
 * answer of an update this run took (the waiting caller gets it) and completes with its input. An update
 * the run did not take, or one already answered, fails the Task with `Workflow.InvalidInput`.
 */
export async function completeUpdate(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input as Record<string, unknown> | null;
  const refuse = (why: string) => failTask(event.token, "Workflow.InvalidInput", `${event.resource} in state ${event.state}: ${why}`);
  if (!input || typeof input !== "object" || typeof input.update_id !== "string") return void (await refuse("give the `update_id` that platform:await_update answered"));
  const error = input.error as { message?: unknown; type?: unknown } | undefined | null;
  if (error !== undefined && error !== null && (typeof error !== "object" || typeof error.message !== "string")) return void (await refuse("`error` is `{message, type?}`"));
  const message = await inboxStore.getUpdate(run.workspace, run.executionId, input.update_id);
  if (!message || message.deliveredRunId !== run.runId) return void (await refuse(`this run took no update '${input.update_id}'`));
  const answer = error ? { error: { message: String(error.message), ...(typeof error.type === "string" ? { type: error.type } : {}) }, result: null } : { result: input.result ?? null, error: null };
  if (!(await inboxStore.move(run.workspace, run.executionId, message.seq, "DELIVERED", "COMPLETED", { ...answer, completedAtMs: Date.now() }))) {
    return void (await refuse(`the update '${input.update_id}' is ${message.status === "COMPLETED" ? "already completed" : message.status}`));
  }
  await completeTask(event.token, input);
}
