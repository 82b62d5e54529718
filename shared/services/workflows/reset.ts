import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { Unprocessable } from "../../domain/errors.js";
import { resetPoints } from "../../domain/workflows/history.js";
import { resumeInput } from "../../domain/workflows/program/index.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { stopRun } from "../../engine/workflow-machines.js";
import type { ResetBody } from "../../schemas/workflow-interaction.js";
import { runStore } from "../../store/workflows/runs.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { launchRun } from "./chain.js";
import { latestRun, openRun } from "./executions.js";
import { entriesOf } from "./history.js";
import { rewind } from "./inbox.js";
import { closeRun } from "./status.js";
import { ExecutionAlreadyStarted, routeExecution } from "./workflows.js";

/**
 * POST …/reset (docs/workflows.md, "Reset"; reference/workflows.md §2.3-C): the execution's latest run
 * ends (TERMINATED, intent `reset`, when still open) and a new run starts under the same execution id on
 * the newest registration of the run's deployment, entering the top-level state of the chosen
 * `EVENT_TYPE_WORKFLOW_TASK_COMPLETED` event with that state's input (the program's resume prelude).
 * Signals and updates the old run took from that point on go back to the inbox for the new run, unless
 * `exclude_signals` / `exclude_updates`.
 */

/** 422 WF_1001 naming the ids a reset may go to: `valid_reset_events` beside the detail (reference/workflows.md §1.6). */
export class InvalidResetPoint extends Unprocessable {
  constructor(eventId: number, valid: number[]) {
    super([
      {
        loc: ["body", "event_id"],
        msg: `Event ${eventId} is not a point a reset may go back to; valid: ${valid.length ? valid.join(", ") : "none (the run entered no top-level Task state)"}`,
        type: "value_error",
      },
    ]);
    (this as { extra?: Record<string, unknown> }).extra = { valid_reset_events: valid };
  }
}

export async function reset(caller: Pick<Caller, "workspace">, executionId: string, body: ResetBody): Promise<{ runId: string }> {
  const run = await latestRun(caller, executionId);
  const entries = await entriesOf(run, { fresh: true });
  const step = entries[body.event_id - 1]?.step;
  if (!step) throw new InvalidResetPoint(body.event_id, resetPoints(entries));

  const workflow = await workflowRegistry.getWorkflow(caller.workspace, run.workflowId);
  const registration =
    (workflow && (await routeExecution(caller, workflow, run.deploymentName).catch(() => undefined))) ??
    (await workflowRegistry.getRegistration(caller.workspace, run.registrationId));
  if (!registration) throw new Error(`No registration of workflow ${run.workflowId} to reset run ${run.runId} on`);
  const execution = await runStore.getExecution(caller.workspace, executionId);

  const reason = body.reason ?? "Reset through the API";
  if (!isClosed(run.status)) {
    await runStore.setIntent(caller.workspace, run.runId, { intent: "reset" });
    await stopRun(run.executionArn, "Workflow.Reset", reason);
    await closeRun(run, "TERMINATED", { reason });
  }
  await rewind(run, step.atMs, { signals: body.exclude_signals, updates: body.exclude_updates });

  const runId = randomUUID();
  const next: RunRecord = { ...run, ...openRun(registration, runId, Date.now()), checkpoint: { state: step.state, input: step.input }, continuedRunId: null, firstExecutionRunId: runId, continueAsNew: null };
  const deadlineMs = execution?.deadlineMs ?? null;
  if (!(await runStore.start(next, deadlineMs))) throw new ExecutionAlreadyStarted(run.executionId);
  await launchRun(next, {
    deadlineMs,
    versionArn: registration.versionArn,
    startInput: resumeInput(step.state, step.input),
    displayName: workflow?.displayName ?? null,
    failure: "The reset run could not be started; reset the execution again",
  });
  return { runId };
}
