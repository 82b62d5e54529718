import type { DispatchEvent } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { failTask } from "../../../engine/workflow-machines.js";
import { wait } from "../inbox.js";

/**
 * `platform:await_signal` `{name}`: the Task waits, with its token, until a signal of that name is in the
 * execution's inbox, and completes with the signal's input: the oldest such signal, each taken once. Its
 * `TimeoutSeconds` bounds the wait (Step Functions fails it with `States.Timeout`); a signal arriving later
 * stays in the inbox for the next wait.
 */
export async function awaitSignal(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input as Record<string, unknown> | null;
  if (typeof input?.name !== "string" || !input.name) {
    await failTask(event.token, "Workflow.InvalidInput", `${event.resource} in state ${event.state}: give the signal's \`name\``);
    return;
  }
  await wait(run, { state: event.state, kind: "signal", name: input.name, token: event.token });
}
