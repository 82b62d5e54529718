import type { Caller } from "../../domain/caller.js";
import { Unprocessable } from "../../domain/errors.js";
import { TERMINAL_EVENT_TYPES, type StoredWorkflowEvent, type WorkflowEvent } from "../../domain/workflows/events.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { logger } from "../../observability/logger.js";
import type { EventStreamQuery } from "../../schemas/workflows.js";
import { eventStore } from "../../store/workflows/events.js";
import { runStore } from "../../store/workflows/runs.js";
import { CLOSING_EVENT_WAIT_MS, closesWithEvent } from "./status.js";
import { WorkflowNotFound } from "./workflows.js";

/**
 * GET /v1/workflows/events/stream (docs/workflows.md, "Events"): a root execution's events as Server-Sent
 * Events, replayed from `start_seq` (or after `Last-Event-ID`), then followed live by polling the root's
 * log. It ends after the root's closing event, when the root is closed and everything is sent, at
 * STREAM_MAX_MS (API Gateway streams for 15 minutes; the client resumes with Last-Event-ID), or when the
 * client goes away.
 */
export const STREAM_NAME = "workflow_events";
export const STREAM_MAX_MS = 14 * 60_000;
export const PING_MS = 15_000;
const POLL_MS = 100;
const IDLE_POLL_MS = 500;
const BATCH = 100;
/** How long a missing sequence is waited for before the stream goes past it (a writer that died mid-append). */
const GAP_WAIT_MS = 2_000;

export interface StreamOptions {
  /** Ends the stream (the client disconnected). */
  signal?: AbortSignal;
  /** Test hooks: the stream's limits. */
  maxMs?: number;
  pingMs?: number;
}

/** `*`, empty or absent: not given (the SDK sends `*` for every filter it was not told). */
const given = (value: string | undefined): string | undefined => (value === undefined || value === "" || value === "*" ? undefined : value);

async function rootOf(caller: Pick<Caller, "workspace">, query: EventStreamQuery): Promise<string> {
  const named = given(query.root_workflow_exec_id) ?? given(query.parent_workflow_exec_id) ?? given(query.workflow_exec_id);
  if (named === undefined) {
    throw new Unprocessable([
      { loc: ["query", "root_workflow_exec_id"], msg: "One of root_workflow_exec_id, parent_workflow_exec_id or workflow_exec_id is required", type: "missing" },
    ]);
  }
  const execution = await runStore.getExecution(caller.workspace, named);
  if (!execution) throw new WorkflowNotFound("Workflow execution", named);
  return given(query.root_workflow_exec_id) ?? execution.rootExecutionId;
}

function startOf(startSeq: number, lastEventId: string | undefined): number {
  if (lastEventId === undefined || lastEventId === "") return startSeq;
  if (!/^\d{1,15}$/.test(lastEventId.trim())) throw new Unprocessable([{ loc: ["header", "last-event-id"], msg: "Last-Event-ID must be an event's sequence number", type: "int_parsing" }]);
  return Number(lastEventId.trim()) + 1;
}

/** The query's filters over one event (each `*` or absent lets everything through). */
function filterOf(query: EventStreamQuery): (event: WorkflowEvent) => boolean {
  const types = query.workflow_event_types?.length ? new Set<string>(query.workflow_event_types) : undefined;
  const activityName = given(query.activity_name);
  const activityId = given(query.activity_id);
  const workflowName = given(query.workflow_name);
  const execution = given(query.workflow_exec_id);
  const parent = given(query.parent_workflow_exec_id);
  const stream = given(query.stream);
  return (event) => {
    if (stream !== undefined && stream !== STREAM_NAME) return false;
    if (types && !types.has(event.event_type)) return false;
    const isActivity = event.event_type.startsWith("ACTIVITY_") || event.event_type.startsWith("CUSTOM_TASK_");
    if (query.scope === "activity" && !isActivity) return false;
    if (query.scope === "workflow" && isActivity) return false;
    if (activityName !== undefined && event.attributes.activity_name !== activityName) return false;
    if (activityId !== undefined && event.attributes.task_id !== activityId && event.attributes.custom_task_id !== activityId) return false;
    if (workflowName !== undefined && event.workflow_name !== workflowName) return false;
    if (execution !== undefined && event.workflow_exec_id !== execution) return false;
    if (parent !== undefined && event.parent_workflow_exec_id !== parent && event.workflow_exec_id !== parent) return false;
    return true;
  };
}

/** One SSE frame: `id` is the event's sequence in its root, `data` an OA:StreamEventSsePayload. */
export function frameOf(workspace: string, stored: StoredWorkflowEvent): string {
  const event = stored.event;
  const payload = {
    stream: STREAM_NAME,
    timestamp: new Date(Math.floor(event.event_timestamp / 1000)).toISOString(),
    data: event,
    workflow_context: {
      namespace: workspace,
      workflow_name: event.workflow_name,
      workflow_exec_id: event.workflow_exec_id,
      parent_workflow_exec_id: event.parent_workflow_exec_id,
      root_workflow_exec_id: event.root_workflow_exec_id,
    },
    metadata: {},
    broker_sequence: stored.seq,
  };
  return `id: ${stored.seq}\nevent: workflow.event\ndata: ${JSON.stringify(payload)}\n\n`;
}


/**
 * Checks the request and resolves the root before anything is sent (a refusal is a plain JSON error), then
 * returns the frames, produced as the client reads them.
 */
export async function openStream(caller: Pick<Caller, "workspace">, query: EventStreamQuery, lastEventId: string | undefined, options: StreamOptions = {}): Promise<AsyncIterable<string>> {
  const root = await rootOf(caller, query);
  const start = startOf(query.start_seq, lastEventId);
  return follow(caller.workspace, root, start, filterOf(query), options);
}

/**
 * GET /v1/workflows/executions/{execution_id}/stream: that execution's own events (a child's are in its
 * root's log), from after `Last-Event-ID` (the header wins over the `last_event_id` query parameter; both
 * name a sequence, so the stream resumes at the next one), ending at the execution's own close.
 */
export async function openExecutionStream(caller: Pick<Caller, "workspace">, executionId: string, lastEventId: string | undefined, options: StreamOptions = {}): Promise<AsyncIterable<string>> {
  const execution = await runStore.getExecution(caller.workspace, executionId);
  if (!execution) throw new WorkflowNotFound("Workflow execution", executionId);
  const start = startOf(0, lastEventId);
  return follow(caller.workspace, execution.rootExecutionId, start, (event) => event.workflow_exec_id === executionId, options, executionId);
}

/** Follows `root`'s log; `closing` is the execution whose close ends the stream (the root itself, unless told). */
async function* follow(workspace: string, root: string, start: number, keep: (event: WorkflowEvent) => boolean, options: StreamOptions, closing = root): AsyncGenerator<string> {
  const began = performance.now();
  const maxMs = options.maxMs ?? STREAM_MAX_MS;
  const pingMs = options.pingMs ?? PING_MS;
  let lastSent = performance.now();
  // Sequences start at 1.
  let next = Math.max(start, 1);
  let idle = false;
  /** Since when the next sequence is missing while a later one is there (performance.now()), if it is. */
  let gapSince: number | undefined;
  try {
    while (!options.signal?.aborted && performance.now() - began < maxMs) {
      const seen = eventStore.appendsTo(workspace, root);
      const batch = await eventStore.listFrom(workspace, root, next, BATCH);
      let waiting = false;
      for (const stored of batch) {
        if (stored.seq > next) {
          // A writer took the missing number first and has not written its event yet: wait for it, in
          // order, unless it stays missing (its writer died between the two writes): then skip the gap.
          gapSince ??= performance.now();
          if (performance.now() - gapSince < GAP_WAIT_MS) {
            waiting = true;
            break;
          }
        }
        gapSince = undefined;
        next = stored.seq + 1;
        if (keep(stored.event)) {
          yield frameOf(workspace, stored);
          lastSent = performance.now();
        }
        if (stored.event.workflow_exec_id === closing && TERMINAL_EVENT_TYPES.includes(stored.event.event_type)) {
          // The root's closing event ends the stream, if it closes the root's latest run (an id may be used again).
          const execution = await runStore.getExecution(workspace, closing);
          // A failed attempt whose retry is armed (RETRYING_AFTER_ERROR) is not the end: the next attempt follows.
          if (!execution || (execution.latestRunId === stored.event.workflow_run_id && execution.status !== "RETRYING_AFTER_ERROR")) return;
        }
      }
      if (batch.length === BATCH && !waiting) continue;
      if (batch.length === 0) {
        const execution = await runStore.getExecution(workspace, closing);
        if (!execution) return;
        if (isClosed(execution.status)) {
          const closedFor = Date.now() - Date.parse(execution.endTime ?? new Date(0).toISOString());
          if (!closesWithEvent(execution.status) || closedFor > CLOSING_EVENT_WAIT_MS) return;
        }
      }
      if (performance.now() - lastSent >= pingMs) {
        yield ": ping\n\n";
        lastSent = performance.now();
      }
      idle = batch.length === 0;
      // An append in this process wakes the stream at once (locally, where the writers share it); otherwise the poll does.
      await eventStore.waitForAppend(workspace, root, idle ? IDLE_POLL_MS : POLL_MS, options.signal, seen);
    }
  } catch (error) {
    logger.error("workflow event stream failed", { root, error: error as Error });
    yield `event: error\ndata: ${JSON.stringify({ error: "The event stream failed; resume with Last-Event-ID", reason: "internal_error" })}\n\n`;
  }
}
