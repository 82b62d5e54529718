import type { BatchEndpoint, BatchStatus } from "../schemas/batch.js";

/** A batch job: the one record type of the batch table. Times are unix seconds, as the wire has them. */
export interface BatchJobRecord {
  id: string;
  workspace: string;
  organization: string;
  owner: string;
  endpoint: BatchEndpoint;
  model: string | null;
  agentId: string | null;
  metadata: Record<string, string> | null;
  inputFiles: string[];
  /** S3 key of the inline `requests`, written as JSONL at create time. */
  inlineKey: string | null;
  status: BatchStatus;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  timeoutHours: number;
  /** createdAt + timeoutHours: requests are not started after it, and the job ends TIMEOUT_EXCEEDED. */
  deadline: number;
  totalRequests: number;
  completedRequests: number;
  succeededRequests: number;
  failedRequests: number;
  outputFile: string | null;
  errorFile: string | null;
  errors: { message: string; count: number }[];
  executionArn: string | null;
}

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
