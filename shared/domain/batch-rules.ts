import type { BatchStatus } from "../schemas/batch.js";

/** Where a job may go from each status; every status write is conditional on one of these. */
export const TRANSITIONS: Record<BatchStatus, readonly BatchStatus[]> = {
  QUEUED: ["RUNNING", "CANCELLATION_REQUESTED", "FAILED"],
  RUNNING: ["SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLATION_REQUESTED"],
  CANCELLATION_REQUESTED: ["CANCELLED", "FAILED"],
  SUCCESS: [],
  FAILED: [],
  TIMEOUT_EXCEEDED: [],
  CANCELLED: [],
};

export const isFinal = (status: BatchStatus): boolean => TRANSITIONS[status].length === 0;

/** The statuses a job may be in for `to` to be written. */
export const sourcesOf = (to: BatchStatus): BatchStatus[] =>
  (Object.keys(TRANSITIONS) as BatchStatus[]).filter((from) => TRANSITIONS[from].includes(to));
