import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { ApiError, Unprocessable } from "../../domain/errors.js";
import type { InboxMessage } from "../../domain/workflows/inbox.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { inboxStore } from "../../store/workflows/inbox.js";
import { runStore } from "../../store/workflows/runs.js";
import { accept, handlerCall } from "./signals.js";
import { ExecutionNotRunning } from "./workflows.js";

/**
 * Updates (docs/workflows.md, "Signals, updates and queries"): synchronous. The update goes into the
 * inbox, the program takes it with `platform:await_update`, may run activities, and answers it with
 * `platform:complete_update`; the caller is answered then, or with 504 WF_1103 at the deadline.
 */

/**
 * How long a caller waits: API Gateway's integration timeout is 29 s. `WORKFLOW_UPDATE_TIMEOUT_SECONDS`
 * shortens it (tests), never past 25 s.
 */
export const updateDeadlineSeconds = (): number => {
  const raw = Number(process.env.WORKFLOW_UPDATE_TIMEOUT_SECONDS);
  return process.env.WORKFLOW_UPDATE_TIMEOUT_SECONDS && Number.isFinite(raw) && raw > 0 ? Math.min(raw, 25) : 25;
};

export class UpdateTimedOut extends ApiError {
  constructor(name: string, updateId: string, seconds: number, taken: boolean) {
    const why = taken
      ? `The workflow took update '${name}' but did not complete it within ${seconds} s; its answer will be in the execution's history`
      : `The workflow did not take update '${name}' within ${seconds} s (it is not waiting for updates); the update was withdrawn`;
    // 5xx bodies say "An error occurred" unless the detail is given: this one is the caller's to know.
    super(504, "server_error", why, "update_timed_out", null, { familyCodes: { workflow: "WF_1103" }, extra: { detail: why, update_id: updateId } });
  }
}

/** The program answered the update with an error: 422 WF_1001, the program's message in the detail. */
export class UpdateFailed extends Unprocessable {
  constructor(name: string, error: { message: string; type?: string }) {
    super([{ loc: ["body", "input"], msg: `Update '${name}' failed: ${error.message}`, type: error.type ?? "update_failed" }]);
  }
}

/** POST …/updates: `{update_name, result}` once the program completed it. */
export async function update(caller: Pick<Caller, "workspace">, executionId: string, body: { name: string; input?: unknown }): Promise<{ update_name: string; result: unknown }> {
  const { run, input } = await handlerCall(caller, executionId, "updates", body.name, body.input);
  const updateId = randomUUID();
  const message = await accept(run, "update", updateId, body.name, input);

  const seconds = updateDeadlineSeconds();
  const deadline = performance.now() + seconds * 1000;
  let delay = 20;
  for (let polls = 1; ; polls += 1) {
    const current = await inboxStore.get(caller.workspace, executionId, message.seq);
    if (current?.status === "COMPLETED") return answerOf(body.name, current);
    if (performance.now() >= deadline) {
      // Not taken yet: withdrawn, so the program never handles an update nobody waits for.
      const withdrawn = await inboxStore.move(caller.workspace, executionId, message.seq, "PENDING", "EXPIRED");
      if (!withdrawn) {
        const last = await inboxStore.get(caller.workspace, executionId, message.seq);
        if (last?.status === "COMPLETED") return answerOf(body.name, last);
      }
      throw new UpdateTimedOut(body.name, updateId, seconds, !withdrawn);
    }
    // Every few polls: a run that ended will not answer.
    if (polls % 10 === 0) {
      const now = await runStore.get(caller.workspace, run.runId);
      if (now && isClosed(now.status)) {
        await inboxStore.move(caller.workspace, executionId, message.seq, "PENDING", "EXPIRED");
        throw new ExecutionNotRunning(executionId, now.status);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - performance.now()))));
    delay = Math.min(250, Math.round(delay * 1.5));
  }
}

/** A completed update's answer: its result, or its error as a 422. */
function answerOf(name: string, message: InboxMessage): { update_name: string; result: unknown } {
  if (message.error) throw new UpdateFailed(name, message.error);
  return { update_name: name, result: message.result ?? null };
}
