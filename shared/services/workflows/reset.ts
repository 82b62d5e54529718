import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { Unprocessable } from "../../domain/errors.js";
import { jsonPayload } from "../../domain/workflows/events.js";
import { resetPoints } from "../../domain/workflows/history.js";
import { resumeInput } from "../../domain/workflows/program/index.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { executionArnOf } from "../../engine/machines.js";
import { armTimer } from "../../engine/timers.js";
import { startRun, stopRun } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import type { ResetBody } from "../../schemas/workflow-interaction.js";
import { runStore } from "../../store/workflows/runs.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { latestRun } from "./executions.js";
import { entriesOf } from "./history.js";
import { rewind } from "./inbox.js";
import { closeRun, timeoutTimerName, writeEvent } from "./status.js";
import { ExecutionAlreadyStarted, routeExecution } from "./workflows.js";

/**
 * POST …/reset (docs/workflows.md, "Reset"; reference/workflows.md §2.3-C): the execution's latest run
 * ends (TERMINATED, intent `reset`, when still open) and a new run starts under the same execution id on
 * the newest registration of the run's deployment, entering the top-level state of the chosen
 * `EVENT_TYPE_WORKFLOW_TASK_COMPLETED` event with that state's input (the program's resume prelude).
 * Signals and updates the old run took from that point on go back to the inbox for the new run, unless
 * `exclude_signals` / `exclude_updates`.
 */

/** 422 WF_1001 naming the ids a reset may go to (`valid_reset_events`, also in the detail's `ctx`). */
export class InvalidResetPoint extends Unprocessable {
  constructor(eventId: number, valid: number[]) {
    super([
      {
        loc: ["body", "event_id"],
        msg: `Event ${eventId} is not a point a reset may go back to; valid: ${valid.length ? valid.join(", ") : "none (the run entered no top-level Task state)"}`,
        type: "value_error",
        ctx: { valid_reset_events: valid },
      } as never,
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
  const nowMs = Date.now();
  const next: RunRecord = {
    ...run,
    runId,
    registrationId: registration.id,
    deploymentName: registration.deploymentName,
    status: "RUNNING",
    result: null,
    failure: null,
    startTime: new Date(nowMs).toISOString(),
    endTime: null,
    executionArn: executionArnOf(registration.versionArn, runId),
    intent: null,
    cancelRequested: false,
    checkpoint: { state: step.state, input: step.input },
    continuedRunId: null,
    firstExecutionRunId: runId,
  };
  const deadlineMs = execution?.deadlineMs ?? null;
  if (!(await runStore.start(next, deadlineMs))) throw new ExecutionAlreadyStarted(executionId);
  await writeEvent(next, "WORKFLOW_EXECUTION_STARTED", { task_id: runId, workflow_name: run.workflowName, display_name: workflow?.displayName ?? null, input: jsonPayload(run.input), attempt: next.attempt });
  try {
    if (deadlineMs !== null) await armTimer({ name: timeoutTimerName(runId), at: new Date(Math.max(deadlineMs, nowMs)), payload: { kind: "execution-timeout", workspace: caller.workspace, runId } });
    const executionArn = await startRun(registration.versionArn, runId, resumeInput(step.state, step.input));
    if (executionArn !== next.executionArn) await runStore.setExecutionArn(caller.workspace, runId, executionArn);
  } catch (error) {
    logger.error("workflow reset run did not start", { runId, error: error as Error });
    await closeRun(next, "FAILED", { failure: { message: "The reset run could not be started; reset the execution again" } });
  }
  return { runId };
}
