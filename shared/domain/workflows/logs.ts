import type { WorkflowEvent } from "./events.js";
import type { RunRecord } from "./records.js";
import { derivedSpanId } from "./trace-summary.js";

/**
 * Log lines of workflow executions (docs/workflows.md, "Logs"; decision 0064): what the activities' workers
 * report (their `console` output) and the engine's own lines for the run (started, activity scheduled,
 * completed or failed, ended). Each line is kept under its execution and its deployment, expires with a TTL,
 * and answers as OA:ExecutionLogRecord / OA:DeploymentLogRecord.
 */

/** The bytes of log lines one worker request carries (more: 413; line length and count are the request schema's, 422). */
export const MAX_LOG_REQUEST_BYTES = 256 * 1024;
/** How long lines are kept (WORKFLOW_LOG_RETENTION_DAYS). */
export const DEFAULT_LOG_RETENTION_DAYS = 30;

export type LogSeverity = "DEBUG" | "INFO" | "WARN" | "ERROR";

export interface WorkflowLogLine {
  workspace: string;
  executionId: string;
  runId: string;
  deploymentName: string;
  workflowName: string;
  /** Unix microseconds the platform received (or wrote) the line: the order lines are listed and streamed in. */
  atMicros: number;
  /** Makes the line's key unique among lines of the same microsecond. */
  id: string;
  traceId: string;
  spanId: string;
  severity: LogSeverity;
  body: string;
  /** OA:ExecutionLogRecord.log_attributes: strings only. */
  attributes: Record<string, string>;
}

/** OA:ExecutionLogRecord (and DeploymentLogRecord, the same shape). */
export interface LogRecordOut {
  timestamp: string;
  trace_id: string;
  span_id: string;
  severity_text: string;
  body: string;
  log_attributes: Record<string, string>;
}

/** ISO 8601 with microseconds. */
export const isoOfMicros = (micros: number): string => {
  const ms = Math.floor(micros / 1000);
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(micros % 1_000_000).padStart(6, "0")}Z`;
};

export const toLogRecordOut = (line: WorkflowLogLine): LogRecordOut => ({
  timestamp: isoOfMicros(line.atMicros),
  trace_id: line.traceId,
  span_id: line.spanId,
  severity_text: line.severity,
  body: line.body,
  log_attributes: line.attributes,
});

/** The position of a line in its partition's order (also the SSE id and the cursor's place): `<16-digit µs>-<id>`. */
export const positionOf = (line: Pick<WorkflowLogLine, "atMicros" | "id">): string => `${String(line.atMicros).padStart(16, "0")}-${line.id}`;
export { LOG_POSITION as POSITION } from "../../schemas/workflow-streams.js";

type RunOfLine = Pick<RunRecord, "workspace" | "executionId" | "runId" | "deploymentName" | "workflowName" | "traceId">;

export function lineOf(run: RunOfLine, fields: { atMicros: number; id: string; severity: LogSeverity; body: string; spanId: string; attributes: Record<string, string> }): WorkflowLogLine {
  return {
    workspace: run.workspace,
    executionId: run.executionId,
    runId: run.runId,
    deploymentName: run.deploymentName,
    workflowName: run.workflowName,
    traceId: run.traceId ?? "",
    ...fields,
    attributes: { execution_id: run.executionId, run_id: run.runId, workflow_name: run.workflowName, deployment_name: run.deploymentName, ...fields.attributes },
  };
}

/**
 * The engine's line for one of the run's events, or none. It names what happened, never a payload: inputs,
 * results and failure messages are the tenant's data (they are in the events), and may hold secrets.
 */
export function engineLineOf(event: WorkflowEvent): { severity: LogSeverity; body: string; activity?: { id: string; name: string } } | undefined {
  const a = event.attributes;
  const activity = typeof a.task_id === "string" && typeof a.activity_name === "string" ? { id: a.task_id, name: a.activity_name } : undefined;
  const attempt = typeof a.attempt === "number" ? ` (attempt ${a.attempt})` : "";
  const failureType = typeof a.failure === "object" && a.failure !== null && typeof (a.failure as { type?: unknown }).type === "string" ? `: ${(a.failure as { type: string }).type}` : "";
  switch (event.event_type) {
    case "WORKFLOW_EXECUTION_STARTED":
      return { severity: "INFO", body: `Workflow ${event.workflow_name} started: execution ${event.workflow_exec_id}, run ${event.workflow_run_id}${attempt}` };
    case "WORKFLOW_EXECUTION_COMPLETED":
      return { severity: "INFO", body: `Workflow ${event.workflow_name} completed` };
    case "WORKFLOW_EXECUTION_FAILED":
      return { severity: "ERROR", body: `Workflow ${event.workflow_name} failed${failureType}${attempt}` };
    case "WORKFLOW_EXECUTION_CANCELED":
      return { severity: "WARN", body: `Workflow ${event.workflow_name} canceled` };
    case "WORKFLOW_EXECUTION_CONTINUED_AS_NEW":
      return { severity: "INFO", body: `Workflow ${event.workflow_name} continued as a new run` };
    case "ACTIVITY_TASK_STARTED":
      return activity && { severity: "INFO", body: `Activity ${activity.name} scheduled: task ${activity.id}`, activity };
    case "ACTIVITY_TASK_COMPLETED":
      return activity && { severity: "INFO", body: `Activity ${activity.name} completed`, activity };
    case "ACTIVITY_TASK_RETRYING":
      return activity && { severity: "WARN", body: `Activity ${activity.name} failed and will be retried${failureType}${attempt}`, activity };
    case "ACTIVITY_TASK_FAILED":
      return activity && { severity: "ERROR", body: `Activity ${activity.name} failed${failureType}${attempt}`, activity };
    default:
      return undefined;
  }
}

/** The span a line belongs to: its activity task's, else the run's (the ids the trace summary gives them). */
export const spanIdOf = (runId: string, activityId?: string): string => (activityId ? derivedSpanId("task", runId, activityId) : derivedSpanId("run", runId));
