import type { ExecutionFailure, RunRecord } from "../../domain/workflows/records.js";
import { isClosed, statusOfIntent } from "../../domain/workflows/statuses.js";
import { describeRun } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { runStore } from "../../store/workflows/runs.js";
import { continueAsNew } from "./continue-as-new.js";
import { schemaIssues } from "./executions-schema.js";
import { closeRun } from "./run-close.js";
import { retryAfterFailure } from "./retries.js";

/**
 * How a run closes (docs/workflows.md, "Status changes"). Whoever learns of the end first (the status
 * handler, a stop through the API, a timer, the reconciler) moves the run with a conditional write; only
 * that writer disarms the run's timers and writes the closing event, so each run closes once.
 */

/** "Step Functions Execution Status Change" `detail`, as EventBridge (locally the stand-in's callback) delivers it. */
export interface StatusChange {
  executionArn: string;
  /** The execution name: the run id. */
  name: string;
  status: "RUNNING" | "SUCCEEDED" | "FAILED" | "TIMED_OUT" | "ABORTED";
  output?: string | null;
  error?: string | null;
  cause?: string | null;
  /** Epoch ms (EventBridge) or a date. */
  stopDate?: number | string | Date | null;
}

// The primitives of a close live in run-close.ts (the lifecycle modules use them too); re-exported for the callers of this module.
export { CLOSING_EVENT_WAIT_MS, closeRun, closesWithEvent, disarmRunTimers, graceTimerName, timeoutTimerName, writeEvent } from "./run-close.js";

/**
 * A failure as the tenant may see it: a Fail state's error and cause are the program's own; a task's
 * Lambda error arrives as `{"errorType","errorMessage","trace"}` JSON, of which only the message is kept.
 */
export function failureOf(error: string | null | undefined, cause: string | null | undefined): ExecutionFailure {
  let message = cause ?? "";
  try {
    const parsed = JSON.parse(message) as { errorMessage?: unknown };
    if (parsed && typeof parsed === "object" && typeof parsed.errorMessage === "string") message = parsed.errorMessage;
  } catch {
    // A plain-text cause is the message.
  }
  message = (message || error || "The workflow failed").slice(0, 4096);
  return error ? { message, type: error.slice(0, 256) } : { message };
}

function parseOutput(output: string | null | undefined): unknown {
  if (output === null || output === undefined || output === "") return null;
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
}

const isoOf = (date: StatusChange["stopDate"]): string => {
  if (date === null || date === undefined) return new Date().toISOString();
  const parsed = new Date(date);
  return Number.isNaN(parsed.getTime()) ? new Date().toISOString() : parsed.toISOString();
};

/**
 * What a Step Functions status change means for its run. SUCCEEDED is COMPLETED with the output as result,
 * unless the registration declares an output_schema the result breaks (then FAILED, saying why: a caller
 * relying on the schema must not get a result outside it). ABORTED is what the stop was for (the run's
 * intent), TERMINATED when nobody said. Unknown runs and RUNNING are ignored.
 */
export async function applyStatusChange(change: StatusChange): Promise<RunRecord | undefined> {
  if (change.status === "RUNNING") return undefined;
  const run = await runStore.find(change.name);
  if (!run) {
    logger.info("status change of an unknown run", { name: change.name, status: change.status });
    return undefined;
  }
  // A run waiting for its retry has had its end (retries.ts).
  if (isClosed(run.status) || run.status === "RETRYING_AFTER_ERROR") return undefined;
  const endTime = isoOf(change.stopDate);
  switch (change.status) {
    case "SUCCEEDED": {
      if (run.continueAsNew) return continueAsNew(run, endTime);
      const result = parseOutput(change.output);
      const registration = await workflowRegistry.getRegistration(run.workspace, run.registrationId);
      const issues = schemaIssues(registration?.definition.output_schema ?? null, result, ["result"]);
      if (issues.length) {
        const message = `The workflow's result does not match its output_schema: ${issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ")}`.slice(0, 4096);
        return closeRun(run, "FAILED", { endTime, result, failure: { message, type: "OutputSchemaMismatch" } });
      }
      return closeRun(run, "COMPLETED", { endTime, result });
    }
    case "FAILED": {
      // A cancel was asked and the program failed before the grace period ended: an activity that stopped on
      // `cancel_requested` (throwing, as the reference worker's examples do) fails its Task. That is the cancel
      // taking effect, not a failure: CANCELED, never retried (docs/workflows.md, "Cancel").
      if (run.intent === "cancel") return closeRun(run, "CANCELED", { endTime, reason: "Canceled through the API" });
      const failure = failureOf(change.error, change.cause);
      return (await retryAfterFailure(run, failure)) ?? closeRun(run, "FAILED", { endTime, failure });
    }
    case "TIMED_OUT":
      return closeRun(run, "TIMED_OUT", { endTime });
    case "ABORTED": {
      const to = (run.intent && statusOfIntent[run.intent]) || "TERMINATED";
      return closeRun(run, to, { endTime, reason: to === "CANCELED" ? "Canceled through the API" : undefined });
    }
  }
}

/** How long a run may stay open before the reconciler asks Step Functions about it (status events are best effort). */
export const RECONCILE_AFTER_MS = 10 * 60_000;

/**
 * The reconciler: every run still open `olderThanMs` after its start is described; one whose execution is
 * over is closed as its status change would have; one the engine no longer knows (the local engine after a
 * restart; an execution that never started) is FAILED, saying so.
 */
export async function reconcile(options: { olderThanMs?: number; limit?: number; nowMs?: number } = {}): Promise<{ checked: number; closed: number }> {
  const before = new Date((options.nowMs ?? Date.now()) - (options.olderThanMs ?? RECONCILE_AFTER_MS)).toISOString();
  const open = await runStore.listOpenRuns(before, options.limit ?? 500);
  let closed = 0;
  for (const entry of open) {
    const run = await runStore.get(entry.workspace, entry.runId);
    // A run waiting for its retry has no execution to describe: its timer decides.
    if (!run || isClosed(run.status) || run.status === "RETRYING_AFTER_ERROR") continue;
    const description = run.executionArn ? await describeRun(run.executionArn) : undefined;
    let moved: RunRecord | undefined;
    if (!description) {
      moved = await closeRun(run, "FAILED", { failure: { message: "The workflow engine no longer knows this execution; start it again" } });
    } else if (description.status !== "RUNNING" && description.status !== "PENDING_REDRIVE") {
      moved = await applyStatusChange({
        executionArn: run.executionArn,
        name: run.runId,
        status: description.status as StatusChange["status"],
        output: description.output ?? null,
        error: description.error ?? null,
        cause: description.cause ?? null,
        stopDate: description.stopDate ?? null,
      });
    }
    if (moved) closed += 1;
  }
  return { checked: open.length, closed };
}
