import { asApiError } from "../../../domain/errors.js";
import { type DispatchEvent, isRecord } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { isClosed } from "../../../domain/workflows/statuses.js";
import { failTask } from "../../../engine/workflow-machines.js";
import { childStore, runChainStore } from "../../../store/workflows/run-chain.js";
import { runStore } from "../../../store/workflows/runs.js";
import { startChild } from "../executions.js";
import { ExecutionAlreadyStarted } from "../workflows.js";


/**
 * `platform:child_workflow` (decision 21): `{workflow (name or id), input?, execution_id?, deployment_name?}`
 * starts a child execution in the run's workspace as the run's user, with `parent_execution_id` = the run's
 * execution and `root_execution_id` = the run's root, the same trace, and this Task's token on the child's
 * record. The Task completes with the child's result when the child completes, and fails with
 * `Workflow.Child<Status>` when it ends otherwise (child-report.ts). The child's id defaults to
 * `<parent run id>-<state>`; the same call dispatched again while the child runs (a Lambda retry, a restart)
 * re-binds the child to the new token. A loop that starts children from one state gives each an `execution_id`.
 */
export async function childWorkflowBuiltin(run: RunRecord, event: DispatchEvent): Promise<void> {
  const refuse = (name: string, why: string) => failTask(event.token, name, `${event.resource} in state ${event.state}: ${why}`);
  const input = event.input;
  if (!isRecord(input)) return void (await refuse("Workflow.InvalidInput", "give `workflow` (a name or id) and `input`"));
  const identifier = input.workflow ?? input.workflow_identifier;
  if (typeof identifier !== "string" || !identifier) return void (await refuse("Workflow.InvalidInput", "`workflow` is the child's workflow name or id"));
  if (input.input !== undefined && input.input !== null && !isRecord(input.input)) return void (await refuse("Workflow.InvalidInput", "`input` is an object"));
  const executionId = typeof input.execution_id === "string" && input.execution_id ? input.execution_id : `${run.runId}-${event.state.replace(/[^A-Za-z0-9_.-]/g, "_")}`;
  if (executionId.length > 256) return void (await refuse("Workflow.InvalidInput", "`execution_id` has at most 256 characters"));
  const parentTask = { workspace: run.workspace, runId: run.runId, executionId: run.executionId, token: event.token };

  try {
    await childStore.add(run.workspace, run.runId, executionId);
    await startChild(
      { workspace: run.workspace, principal: run.userId ?? `workflow:${run.workflowId}` },
      identifier,
      { execution_id: executionId, input: (input.input as Record<string, unknown> | undefined) ?? {}, deployment_name: typeof input.deployment_name === "string" ? input.deployment_name : null, traceId: run.traceId ?? null },
      { parentExecutionId: run.executionId, rootExecutionId: run.rootExecutionId, parentTask },
    );
  } catch (error) {
    if (error instanceof ExecutionAlreadyStarted && (await rebind(run, executionId, parentTask))) return;
    const known = asApiError(error);
    // The child's workflow unknown or ambiguous, its input refused, its id taken by another execution: the program's Catch decides.
    if (known.status < 500) return void (await refuse("Workflow.ChildNotStarted", known.message));
    throw error;
  }
}

/**
 * The same call again while its child runs (a Lambda retry, a restart that resumed the parent): the child of
 * this parent run waits for the new token instead. Another parent's execution of that id is not ours.
 */
async function rebind(run: RunRecord, executionId: string, parentTask: NonNullable<RunRecord["parentTask"]>): Promise<boolean> {
  const execution = await runStore.getExecution(run.workspace, executionId);
  const child = execution && (await runStore.get(run.workspace, execution.latestRunId));
  if (!child || child.parentTask?.runId !== run.runId || isClosed(child.status)) return false;
  return runChainStore.setParentTask(run.workspace, child.runId, parentTask);
}
