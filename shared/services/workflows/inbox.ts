import type { InboxMessage, InboxWaiter } from "../../domain/workflows/inbox.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { completeTask } from "../../engine/workflow-machines.js";
import { inboxStore } from "../../store/workflows/inbox.js";

/**
 * Delivery from an execution's inbox to the Tasks waiting on it (docs/workflows.md, "Signals, updates and
 * queries"). Whoever changes either side (a signal or an update arriving, a Task starting to wait) runs
 * `deliver`: each waiter takes the oldest PENDING message it waits for, claimed in one transaction with
 * the waiter's removal, and then its token is completed. A token no longer open (the Task timed out, the
 * run ended or its execution was lost) puts the message back for the next waiter.
 */

/** What the waiting Task's output is: a signal's input; for an update `{update_id, name, input}`. */
export const outputOf = (message: InboxMessage): unknown =>
  message.kind === "signal" ? message.input : { update_id: message.id, name: message.name, input: message.input };

const matches = (waiter: InboxWaiter, message: InboxMessage) => waiter.kind === message.kind && (waiter.name === null || waiter.name === message.name);

/** Rounds of delivery before giving up on a contended inbox (the next arrival or wait delivers again). */
const MAX_ROUNDS = 50;

/** Delivers what can be delivered now; returns the sequences this call handed over. */
export async function deliver(workspace: string, executionId: string): Promise<number[]> {
  const handed: number[] = [];
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const waiters = await inboxStore.waiters(workspace, executionId);
    if (!waiters.length) return handed;
    const pending = (await inboxStore.messages(workspace, executionId)).filter((message) => message.status === "PENDING");
    if (!pending.length) return handed;
    let changed = false;
    for (const waiter of waiters) {
      const index = pending.findIndex((message) => matches(waiter, message));
      if (index < 0) continue;
      const message = pending[index]!;
      changed = true;
      if (!(await inboxStore.claim(waiter, message, Date.now()))) break; // another deliverer moved first: read again
      pending.splice(index, 1);
      if (await completeTask(waiter.token, outputOf(message))) handed.push(message.seq);
      else await inboxStore.unclaim(workspace, executionId, message.seq, waiter.token);
    }
    if (!changed) return handed;
  }
  return handed;
}

/** A Task starts waiting on the inbox: its waiter is recorded, then whatever it waits for is delivered. */
export async function wait(run: RunRecord, waiter: Omit<InboxWaiter, "workspace" | "executionId" | "runId" | "atMs">): Promise<void> {
  await inboxStore.putWaiter({ ...waiter, workspace: run.workspace, executionId: run.executionId, runId: run.runId, atMs: Date.now() });
  await deliver(run.workspace, run.executionId);
}

/**
 * Messages delivered to `run` since `sinceMs` go back to PENDING, oldest first, and the run's waiters are
 * dropped: the run starts again from a point before them (a restart resuming it from its checkpoint, or a
 * reset), so it takes them again, once, in inbox sequence. `keep` names kinds that are not replayed.
 * Returns the sequences put back.
 */
export async function rewind(run: Pick<RunRecord, "workspace" | "executionId" | "runId">, sinceMs: number, keep: { signals?: boolean; updates?: boolean } = {}): Promise<number[]> {
  for (const waiter of await inboxStore.waiters(run.workspace, run.executionId)) {
    if (waiter.runId === run.runId) await inboxStore.deleteWaiter(waiter);
  }
  const back: number[] = [];
  for (const message of await inboxStore.messages(run.workspace, run.executionId)) {
    if (message.deliveredRunId !== run.runId || (message.deliveredAtMs ?? 0) < sinceMs) continue;
    if ((message.kind === "signal" && keep.signals) || (message.kind === "update" && keep.updates)) continue;
    if (message.status !== "DELIVERED" && message.status !== "COMPLETED") continue;
    if (await inboxStore.move(run.workspace, run.executionId, message.seq, message.status, "PENDING", { deliveredToken: null })) back.push(message.seq);
  }
  return back;
}
