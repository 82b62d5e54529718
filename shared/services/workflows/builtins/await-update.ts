import type { DispatchEvent } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { failTask } from "../../../engine/workflow-machines.js";
import { wait } from "../inbox.js";

/**
 * `platform:await_update` `{name?}`: the Task waits for the next update (of that name, or of any) and
 * completes with `{update_id, name, input}`. The program handles it (activities included) and ends with
 * `platform:complete_update`; until then the update's caller waits (at most the API's deadline).
 */
export async function awaitUpdate(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = (event.input ?? {}) as Record<string, unknown>;
  if (typeof input !== "object" || (input.name !== undefined && input.name !== null && typeof input.name !== "string")) {
    await failTask(event.token, "Workflow.InvalidInput", `${event.resource} in state ${event.state}: \`name\`, when given, is the update's name`);
    return;
  }
  await wait(run, { state: event.state, kind: "update", name: typeof input.name === "string" ? input.name : null, token: event.token });
}
