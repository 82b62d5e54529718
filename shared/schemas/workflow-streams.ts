import * as z from "zod";
import { Uuid } from "./common.js";
import { queryInt } from "./query.js";
import { DeploymentName, WorkerName } from "./workers.js";

/**
 * Per-execution streams of the workflow routes (docs/workflows.md, "Execution streams and logs"). Resume
 * positions are bounded strings, checked by the service (a bad one is a 422 before the first frame).
 */

/** GET /v1/workflows/executions/{execution_id}/stream. `event_source` (OA:EventSource) is accepted: every source is the event log. */
export const ExecutionStreamQuery = z.object({
  event_source: z.enum(["DATABASE", "LIVE", "HYBRID"]).optional(),
  // An event's sequence number, as the header's (the header, when sent, wins and is checked by the service).
  last_event_id: z.string().regex(/^\s*\d{1,15}\s*$/, "last_event_id must be an event's sequence number").optional(),
});

/** The longest log line a worker may send, and the most lines a request carries (more: 422; the bytes of a request: 413, decision 0064). */
export const MAX_LOG_LINE_CHARS = 8_192;
export const MAX_LOG_LINES_PER_REQUEST = 100;

const DateTime = z.iso.datetime({ offset: true });
const Order = z.enum(["asc", "desc"]).default("asc");
/** A log line's position: its receive time in microseconds (16 digits) and a tiebreak, as its frame's id. */
export const LOG_POSITION = /^\d{16}-[0-9a-f]{1,32}$/;

/** A log frame's id as the stream sent it (the Last-Event-ID header, when sent, wins and is checked by the service). */
const ResumeId = z.string().trim().regex(LOG_POSITION, "last_event_id must be the id of a log frame this stream sent");
/** Our activity ids are task ids (UUIDs), not the reference's digits: any short id is taken. */
const ActivityId = z.string().min(1).max(256);
const Limit = queryInt().min(1).max(100).default(50);

/** GET /v1/workflows/executions/{execution_id}/logs. */
export const ExecutionLogQuery = z.object({
  run_id: Uuid.optional(),
  activity_id: ActivityId.optional(),
  after: DateTime.optional(),
  before: DateTime.optional(),
  order: Order,
  cursor: z.string().max(2048).optional(),
  limit: Limit,
});
export type ExecutionLogQuery = z.infer<typeof ExecutionLogQuery>;

/** GET /v1/workflows/executions/{execution_id}/logs/stream. */
export const ExecutionLogStreamQuery = z.object({ run_id: Uuid.optional(), activity_id: ActivityId.optional(), after: DateTime.optional(), last_event_id: ResumeId.optional() });
export type ExecutionLogStreamQuery = z.infer<typeof ExecutionLogStreamQuery>;

/** GET /v1/workflows/deployments/{name}/logs. */
export const DeploymentLogQuery = z.object({
  worker_name: z.string().min(1).max(200).optional(),
  workflow_name: z.string().min(1).max(256).optional(),
  after: DateTime.optional(),
  before: DateTime.optional(),
  order: Order,
  cursor: z.string().max(2048).optional(),
  limit: Limit,
});
export type DeploymentLogQuery = z.infer<typeof DeploymentLogQuery>;

/** GET /v1/workflows/deployments/{name}/logs/stream. */
export const DeploymentLogStreamQuery = z.object({
  worker_name: z.string().min(1).max(200).optional(),
  workflow_name: z.string().min(1).max(256).optional(),
  after: DateTime.optional(),
  last_event_id: ResumeId.optional(),
});
export type DeploymentLogStreamQuery = z.infer<typeof DeploymentLogStreamQuery>;

/** OA:ExecutionLogRecord / DeploymentLogRecord. */
export const LogRecordOut = z.object({
  timestamp: z.string(),
  trace_id: z.string(),
  span_id: z.string(),
  severity_text: z.string(),
  body: z.string(),
  log_attributes: z.record(z.string(), z.string()),
});
/** OA:ExecutionLogSearchResponse / DeploymentLogSearchResponse. */
export const LogSearchOut = z.object({ results: z.array(LogRecordOut), next_cursor: z.string().nullable() });

/** Extension of the worker protocol: POST /v1/workflows/tasks/{task_id}/logs (its activity's console lines). */
export const TaskLogsRequest = z.strictObject({
  deployment_name: DeploymentName,
  worker_name: WorkerName,
  lines: z
    .array(
      z.strictObject({
        message: z.string().max(MAX_LOG_LINE_CHARS),
        level: z.enum(["DEBUG", "INFO", "WARN", "ERROR"]).optional(),
        /** The worker's clock when the line was written (kept as `worker_timestamp`; lines are ordered as received). */
        timestamp: DateTime.optional(),
      }),
    )
    .min(1)
    .max(MAX_LOG_LINES_PER_REQUEST),
});
export type TaskLogsRequest = z.infer<typeof TaskLogsRequest>;
export const TaskLogsOut = z.object({ accepted: z.number().int() });
