import type { Caller } from "../../domain/caller.js";
import { PayloadTooLarge, Unprocessable } from "../../domain/errors.js";
import {
  lineOf,
  MAX_LOG_REQUEST_BYTES,
  POSITION,
  positionOf,
  spanIdOf,
  toLogRecordOut,
  type LogRecordOut,
  type WorkflowLogLine,
} from "../../domain/workflows/logs.js";
import { isDeploymentActive } from "../../domain/workflows/liveness.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { logger } from "../../observability/logger.js";
import type { DeploymentLogQuery, DeploymentLogStreamQuery, ExecutionLogQuery, ExecutionLogStreamQuery, TaskLogsRequest } from "../../schemas/workflow-streams.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";
import { logStore, type LogPartition } from "../../store/workflows/logs.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { runStore } from "../../store/workflows/runs.js";
import { lineId, ttlOf } from "./engine-log.js";
import { PING_MS, STREAM_MAX_MS } from "./stream.js";
import { taskOfWorker } from "./workers.js";
import { WorkflowNotFound } from "./workflows.js";
import * as z from "zod";

/**
 * Logs of workflow executions and deployments (docs/workflows.md, "Logs"; decision 0064): workers report their
 * activities' lines (`POST /v1/workflows/tasks/{task_id}/logs`, an extension of the worker protocol), the engine
 * writes one line per event of a run; both are listed and streamed per execution and per deployment.
 */

/** Lines of the last moments are not streamed yet: a writer in another process may still be writing one just before. */
const SETTLE_MS = 1_000;
const POLL_MS = 250;
const IDLE_POLL_MS = 1_000;
const STREAM_PAGE = 100;
const FIRST = "0000000000000000-";
const LAST = "9999999999999999-g";

const micros = (ms: number) => Math.round(ms * 1000);
/** The position just before the first line at `ms` (a range's inclusive start), and just after the last before it. */
const fromMs = (ms: number) => `${String(micros(ms)).padStart(16, "0")}-`;
const beforeMs = (ms: number) => `${String(Math.max(0, micros(ms) - 1)).padStart(16, "0")}-g`;

/** POST /v1/workflows/tasks/{task_id}/logs: the lines of the task's activity, from the worker that claimed it. */
export async function reportTaskLogs(caller: Caller, taskId: string, request: TaskLogsRequest): Promise<{ accepted: number }> {
  const bytes = request.lines.reduce((sum, line) => sum + Buffer.byteLength(line.message), 0);
  if (bytes > MAX_LOG_REQUEST_BYTES) throw new PayloadTooLarge(`One request carries at most ${MAX_LOG_REQUEST_BYTES} bytes of log lines; this one ${bytes}`, "logs_too_large");
  const task = await taskOfWorker(caller, taskId, request);
  // Only the worker that ran the activity speaks for it (also after it reported the result: lines are flushed last).
  if (task.workerName !== request.worker_name) throw new WorkflowNotFound("Task", taskId);
  const run = await runStore.get(caller.workspace, task.runId);
  if (!run) throw new WorkflowNotFound("Task", taskId);
  const nowMs = Date.now();
  const base = micros(nowMs);
  const lines: WorkflowLogLine[] = request.lines.map((line, i) =>
    lineOf(run, {
      // One microsecond apart: the request's order is the lines' order.
      atMicros: base + i,
      id: lineId(),
      severity: line.level ?? "INFO",
      body: line.message,
      spanId: spanIdOf(run.runId, taskId),
      attributes: {
        source: "worker",
        worker_name: request.worker_name,
        activity_id: taskId,
        activity_name: task.activity,
        attempt: String(task.attempt),
        ...(line.timestamp ? { worker_timestamp: line.timestamp } : {}),
      },
    }),
  );
  await logStore.append(lines, ttlOf(nowMs));
  return { accepted: lines.length };
}

// ---- reading ----

const LogCursor = z.strictObject({ f: z.string().max(40), t: z.string().max(40), o: z.enum(["asc", "desc"]), a: z.string().max(40), m: z.record(z.string(), z.string().max(256)) });

async function executionPartition(caller: Pick<Caller, "workspace">, executionId: string): Promise<LogPartition> {
  if (!(await runStore.getExecution(caller.workspace, executionId))) throw new WorkflowNotFound("Workflow execution", executionId);
  return { kind: "execution", workspace: caller.workspace, executionId };
}

async function deploymentPartition(caller: Pick<Caller, "workspace">, name: string): Promise<LogPartition> {
  if (!(await workflowRegistry.getDeployment(caller.workspace, name))) throw new WorkflowNotFound("Deployment", name);
  return { kind: "deployment", workspace: caller.workspace, deployment: name };
}

const defined = (entries: Record<string, string | undefined | null>): Record<string, string> =>
  Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[1] !== ""));

async function listPage(where: LogPartition, query: { after?: string; before?: string; order: "asc" | "desc"; cursor?: string; limit: number }, match: Record<string, string>) {
  const range = query.cursor
    ? readCursor(query.cursor, LogCursor, "cursor")
    : { f: query.after ? fromMs(Date.parse(query.after)) : FIRST, t: query.before ? beforeMs(Date.parse(query.before)) : LAST, o: query.order, a: "", m: match };
  // A cursor carries its filters: it names a place in that listing only.
  const page = await logStore.page(where, { from: range.f, to: range.t, ascending: range.o === "asc", limit: query.limit, after: range.a || undefined, match: range.m });
  return {
    results: page.lines.map(toLogRecordOut),
    next_cursor: page.last ? encodeCursor({ ...range, a: page.last }) : null,
  };
}

/** GET /v1/workflows/executions/{execution_id}/logs. */
export async function executionLogs(caller: Pick<Caller, "workspace">, executionId: string, query: ExecutionLogQuery) {
  return listPage(await executionPartition(caller, executionId), query, defined({ run_id: query.run_id, activity_id: query.activity_id }));
}

/** GET /v1/workflows/deployments/{name}/logs. */
export async function deploymentLogs(caller: Pick<Caller, "workspace">, name: string, query: DeploymentLogQuery) {
  return listPage(await deploymentPartition(caller, name), query, defined({ worker_name: query.worker_name, workflow_name: query.workflow_name }));
}

// ---- streaming ----

export interface LogStreamOptions {
  signal?: AbortSignal;
  /** Test hooks: the stream's limits. */
  maxMs?: number;
  pingMs?: number;
}

/** Where a stream starts: after the Last-Event-ID (the header wins over the query parameter), else at `after`, else at the beginning. */
function startOf(lastEventId: string | undefined, after: string | undefined): { after?: string; from: string } {
  const resume = lastEventId?.trim();
  if (resume) {
    if (!POSITION.test(resume)) throw new Unprocessable([{ loc: ["header", "last-event-id"], msg: "Last-Event-ID must be the id of a log frame this stream sent", type: "value_error" }]);
    return { after: resume, from: FIRST };
  }
  return { from: after ? fromMs(Date.parse(after)) : FIRST };
}

export const logFrame = (line: WorkflowLogLine): string => `id: ${positionOf(line)}\nevent: log\ndata: ${JSON.stringify(toLogRecordOut(line) satisfies LogRecordOut)}\n\n`;

const maxStreamMs = (options: LogStreamOptions) => options.maxMs ?? (Number(process.env.WORKFLOW_LOG_STREAM_MAX_SECONDS) > 0 ? Number(process.env.WORKFLOW_LOG_STREAM_MAX_SECONDS) * 1000 : STREAM_MAX_MS);

/**
 * Follows a partition: every line up to a moment ago, in order, then new ones as they settle. `closed` says when
 * nothing more will come (an execution's: closed and settled); a deployment's stream runs until its time is up.
 */
async function* follow(where: LogPartition, start: { after?: string; from: string }, match: Record<string, string>, closed: () => Promise<boolean>, options: LogStreamOptions): AsyncGenerator<string> {
  const began = performance.now();
  const maxMs = maxStreamMs(options);
  const pingMs = options.pingMs ?? PING_MS;
  let lastSent = performance.now();
  let after = start.after;
  /** When the stream first found nothing more would come: every line written before then sorts before it. */
  let closedAt: number | undefined;
  try {
    while (!options.signal?.aborted && performance.now() - began < maxMs) {
      const settled = Date.now() - SETTLE_MS;
      const page = await logStore.page(where, { from: start.from, to: beforeMs(settled + 1), ascending: true, limit: STREAM_PAGE, after, match });
      for (const line of page.lines) {
        yield logFrame(line);
        after = positionOf(line);
        lastSent = performance.now();
      }
      if (page.last) continue;
      // Done once a read reached past the moment the close was seen (and found nothing more).
      if (closedAt !== undefined && settled >= closedAt) return;
      if (closedAt === undefined && (await closed())) closedAt = Date.now();
      if (performance.now() - lastSent >= pingMs) {
        yield ": ping\n\n";
        lastSent = performance.now();
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, page.lines.length || closedAt !== undefined ? POLL_MS : IDLE_POLL_MS);
        options.signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  } catch (error) {
    logger.error("workflow log stream failed", { error: error as Error });
    yield `event: error\ndata: ${JSON.stringify({ error: "The log stream failed; resume with Last-Event-ID", reason: "internal_error" })}\n\n`;
  }
}

/** GET /v1/workflows/executions/{execution_id}/logs/stream: ends once the execution is closed and its last lines are sent. */
export async function openExecutionLogStream(caller: Pick<Caller, "workspace">, executionId: string, query: ExecutionLogStreamQuery, lastEventId: string | undefined, options: LogStreamOptions = {}) {
  const where = await executionPartition(caller, executionId);
  const start = startOf(lastEventId ?? query.last_event_id, query.after);
  const closed = async () => {
    const execution = await runStore.getExecution(caller.workspace, executionId);
    return !execution || isClosed(execution.status);
  };
  return follow(where, start, defined({ run_id: query.run_id, activity_id: query.activity_id }), closed, options);
}

/**
 * GET /v1/workflows/deployments/{name}/logs/stream: a tail while the deployment has a live worker (a heartbeat within
 * 50 s), until its time is up (14 minutes) or the client goes; a deployment without one ends once its lines are sent.
 */
export async function openDeploymentLogStream(caller: Pick<Caller, "workspace">, name: string, query: DeploymentLogStreamQuery, lastEventId: string | undefined, options: LogStreamOptions = {}) {
  const where = await deploymentPartition(caller, name);
  const start = startOf(lastEventId ?? query.last_event_id, query.after);
  const idle = async () => !isDeploymentActive(await workflowRegistry.listWorkers(caller.workspace, name), Date.now());
  return follow(where, start, defined({ worker_name: query.worker_name, workflow_name: query.workflow_name }), idle, options);
}
