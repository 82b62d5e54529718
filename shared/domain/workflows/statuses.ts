/**
 * The statuses of a run (and of its execution, which mirrors its latest run), and the moves between
 * them. Every status write is conditional on one of the sources of its target (the store builds the
 * condition from `sourcesOf`), so concurrent writers (a stop call, the status handler, the reconciler,
 * a timer) agree on one outcome.
 */
export const WORKFLOW_STATUSES = [
  "RUNNING",
  "COMPLETED",
  "FAILED",
  "CANCELED",
  "TERMINATED",
  "CONTINUED_AS_NEW",
  "TIMED_OUT",
  "RETRYING_AFTER_ERROR",
] as const;

export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

const CLOSED: readonly WorkflowStatus[] = ["COMPLETED", "FAILED", "CANCELED", "TERMINATED", "CONTINUED_AS_NEW", "TIMED_OUT"];

export const TRANSITIONS: Record<WorkflowStatus, readonly WorkflowStatus[]> = {
  RUNNING: CLOSED.concat("RETRYING_AFTER_ERROR"),
  // Failed and waiting for a workflow-level retry: the next run decides (Workflows II).
  RETRYING_AFTER_ERROR: ["RUNNING", ...CLOSED],
  COMPLETED: [],
  FAILED: [],
  CANCELED: [],
  TERMINATED: [],
  CONTINUED_AS_NEW: [],
  TIMED_OUT: [],
};

export const isClosed = (status: WorkflowStatus): boolean => TRANSITIONS[status].length === 0;

/** The statuses a run may be in for `to` to be written. */
export const sourcesOf = (to: WorkflowStatus): WorkflowStatus[] => WORKFLOW_STATUSES.filter((from) => TRANSITIONS[from].includes(to));

/** Why a run was stopped from outside, recorded before the stop so the ABORTED run is reported as meant. */
export type StopIntent = "terminate" | "cancel" | "timeout" | "reset";

export const statusOfIntent: Record<StopIntent, WorkflowStatus | undefined> = {
  terminate: "TERMINATED",
  cancel: "CANCELED",
  timeout: "TIMED_OUT",
  // A reset ends the run as TERMINATED in favour of the new run (Workflows II).
  reset: "TERMINATED",
};
