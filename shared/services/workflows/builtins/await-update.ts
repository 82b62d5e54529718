import type { DispatchEvent } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { failTask } from "../../../engine/workflow-machines.js";
import { wait } from "../inbox.js";

/**
 * `platform:await_update` `{name}`: the Task waits for the next update of that name (`*`: of any name) and
 * completes with `{update_id, name, input}`. The program handles it (activities included) and ends with
 * `platform:complete_update`; until then the update's caller waits (at most the API's deadline).
 */
export async function awaitUpdate(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input as Record<string, unknown> | null;
  if (typeof input?.name !== "string" || !input.name) {
    await failTask(event.token, "Workflow.InvalidInput", `${event.resource} in state ${event.state}: give the update's \`name\` (\`*\` for any)`);
    return;
  }
  await wait(run, { state: event.state, kind: "update", name: input.name === "*" ? null : input.name, token: event.token });
}
