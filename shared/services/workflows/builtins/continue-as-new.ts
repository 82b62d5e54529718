import type { DispatchEvent } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { completeTask, failTask } from "../../../engine/workflow-machines.js";
import { workflowRegistry } from "../../../store/workflows/registry.js";
import { runChainStore } from "../../../store/workflows/run-chain.js";
import { schemaIssues } from "../executions-schema.js";

/** Step Functions takes at most 256 KiB of input per execution. */
const MAX_INPUT_BYTES = 256 * 1024;

/**
 * `platform:continue_as_new`: the Task's input (its Parameters, or the state's input) is the next run's
 * input, checked against the workflow's input_schema now (the program's Retry/Catch see
 * `Workflow.InvalidInput`). It is recorded on the run and the Task completes with it; when the run then
 * succeeds, the execution continues as a new run (continue-as-new.ts). Put it last: the program's own
 * end is the run's end, and its result is dropped.
 */
export async function continueAsNewBuiltin(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input ?? {};
  const refuse = (why: string) => failTask(event.token, "Workflow.InvalidInput", `${event.resource} in state ${event.state}: ${why}`);
  if (typeof input !== "object" || Array.isArray(input)) return void (await refuse("the next run's input is an object"));
  const bytes = Buffer.byteLength(JSON.stringify(input));
  if (bytes > MAX_INPUT_BYTES) return void (await refuse(`the next run's input is ${bytes} bytes; an execution takes at most ${MAX_INPUT_BYTES}`));
  const registration = await workflowRegistry.getRegistration(run.workspace, run.registrationId);
  const issues = schemaIssues(registration?.definition.input_schema ?? null, input, ["input"]);
  if (issues.length) return void (await refuse(`the next run's input does not match the input_schema: ${issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ")}`.slice(0, 4000)));
  if (!(await runChainStore.setContinueAsNew(run.workspace, run.runId, input))) {
    await failTask(event.token, "Workflow.NotRunning", `The workflow run '${run.runId}' is no longer running`);
    return;
  }
  await completeTask(event.token, input);
}
