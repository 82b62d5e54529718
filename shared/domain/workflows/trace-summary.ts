import { createHash } from "node:crypto";
import type { HistoryEntry } from "./history.js";
import type { RunRecord } from "./records.js";

/**
 * An execution's trace as the trace summary and trace events answer it (docs/workflows.md, "Traces"; decision
 * 0064), derived from its latest run's history (its workflow events, the top-level states it entered, its
 * inbox) and the spans kept under the run's trace id (its model calls). Pure: the service reads, this shapes.
 *
 * Times named `*_unix_nano` are Unix **microseconds**, as the event log's `event_timestamp` (decision 0016):
 * nanoseconds today are past JavaScript's safe integers, and the official SDK (zod `z.int()`) refuses them.
 */

/** OA:WorkflowExecutionTraceSummaryAttributesValues: scalars and arrays (objects are sent as JSON text). */
export type TraceAttributeValue = string | number | boolean | unknown[] | null;
export type TraceAttributes = Record<string, TraceAttributeValue>;

/** OA:WorkflowExecutionTraceEvent. */
export interface TraceEvent {
  type: "EVENT";
  name: string;
  id: string;
  timestamp_unix_nano: number;
  attributes: TraceAttributes;
  internal: boolean;
}

/** OA:WorkflowExecutionProgressTraceEvent: the events of one activity or custom task, merged. */
export interface ProgressTraceEvent extends Omit<TraceEvent, "type"> {
  type: "EVENT_PROGRESS";
  status: "RUNNING" | "COMPLETED" | "FAILED";
  start_time_unix_ms: number;
  end_time_unix_ms: number | null;
  error: string | null;
}

/** OA:WorkflowExecutionTraceSummarySpan. */
export interface TraceSpan {
  span_id: string;
  name: string;
  start_time_unix_nano: number;
  end_time_unix_nano: number | null;
  attributes: TraceAttributes;
  events: TraceEvent[];
  children: TraceSpan[];
}

/** What the trace needs of a span the span writer kept (a model call made in the run's trace). */
export interface KeptSpan {
  span_id: string;
  parent_span_id: string;
  span_name: string;
  start_time: string;
  end_time: string;
  status_code: string;
  operation_name: string;
  request_model: string;
  tool_name: string;
}

const micros = (ms: number): number => Math.round(ms * 1000);
const microsOfIso = (iso: string): number => micros(Date.parse(iso));

/** A stable 16-hex span id for something that has no span of its own (the run, an activity task). */
export const derivedSpanId = (...parts: string[]): string => createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 16);

/** A history payload (`{__payload}`) as its value; objects as JSON text (trace attributes are scalars or arrays). */
function attributeValue(value: unknown): TraceAttributeValue {
  if (typeof value === "object" && value !== null && "__payload" in value) return attributeValue((value as { __payload: unknown }).__payload);
  if (value === undefined) return null;
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.map((item) => (typeof item === "object" && item !== null ? JSON.stringify(attributeValue(item)) : item));
  return JSON.stringify(unwrap(value));
}

function unwrap(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrap);
  if (typeof value !== "object" || value === null) return value;
  if ("__payload" in value) return unwrap((value as { __payload: unknown }).__payload);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unwrap(item)]));
}

const attributesOf = (attributes: Record<string, unknown>): TraceAttributes =>
  Object.fromEntries(Object.entries(attributes).filter(([key]) => key !== "event_id").map(([key, value]) => [key, attributeValue(value)]));

/** An activity's or custom task's events share its task id: the id that `merge_same_id_events` merges by. */
function taskIdOf(entry: HistoryEntry): string | undefined {
  if (entry.type.startsWith("ACTIVITY_TASK_") && typeof entry.attributes.task_id === "string") return entry.attributes.task_id;
  if (entry.type.startsWith("CUSTOM_TASK_") && typeof entry.attributes.custom_task_id === "string") return entry.attributes.custom_task_id;
  return undefined;
}

/**
 * Each history entry as a trace event. Workflow events keep their event id (an activity's or custom task's,
 * its task id); the entries the platform adds (states entered, signals, updates) are `internal`, with their
 * history position as id.
 */
export function traceEventsOf(entries: readonly HistoryEntry[]): TraceEvent[] {
  return entries.map((entry, i) => {
    const eventId = typeof entry.attributes.event_id === "string" ? entry.attributes.event_id : undefined;
    return {
      type: "EVENT" as const,
      name: entry.type,
      id: taskIdOf(entry) ?? eventId ?? String(i + 1),
      timestamp_unix_nano: micros(entry.atMs),
      attributes: attributesOf(entry.attributes),
      internal: eventId === undefined,
    };
  });
}

const ENDED: Record<string, ProgressTraceEvent["status"]> = {
  ACTIVITY_TASK_COMPLETED: "COMPLETED",
  ACTIVITY_TASK_FAILED: "FAILED",
  CUSTOM_TASK_COMPLETED: "COMPLETED",
  CUSTOM_TASK_FAILED: "FAILED",
  CUSTOM_TASK_TIMED_OUT: "FAILED",
  CUSTOM_TASK_CANCELED: "FAILED",
};

const failureMessage = (attributes: TraceAttributes): string | null => {
  const failure = attributes.failure;
  if (typeof failure !== "string") return null;
  try {
    const parsed = JSON.parse(failure) as { message?: unknown };
    return typeof parsed.message === "string" ? parsed.message : failure;
  } catch {
    return failure;
  }
};

/** `merge_same_id_events`: the events of one activity or custom task become one progress event, where its first was. */
export function mergeSameId(events: readonly TraceEvent[]): (TraceEvent | ProgressTraceEvent)[] {
  const merged: (TraceEvent | ProgressTraceEvent)[] = [];
  const byId = new Map<string, ProgressTraceEvent>();
  for (const event of events) {
    const isTask = event.name.startsWith("ACTIVITY_TASK_") || event.name.startsWith("CUSTOM_TASK_");
    if (!isTask || event.internal) {
      merged.push(event);
      continue;
    }
    let progress = byId.get(event.id);
    if (!progress) {
      const name = event.attributes.activity_name ?? event.attributes.custom_task_type;
      progress = {
        ...event,
        type: "EVENT_PROGRESS",
        name: typeof name === "string" ? name : event.name,
        attributes: {},
        status: "RUNNING",
        start_time_unix_ms: Math.floor(event.timestamp_unix_nano / 1000),
        end_time_unix_ms: null,
        error: null,
      };
      byId.set(event.id, progress);
      merged.push(progress);
    }
    progress.attributes = { ...progress.attributes, ...event.attributes };
    const ended = ENDED[event.name];
    if (ended) {
      progress.status = ended;
      progress.end_time_unix_ms = Math.floor(event.timestamp_unix_nano / 1000);
      progress.error = ended === "FAILED" ? (failureMessage(event.attributes) ?? event.name) : null;
    } else if (event.name === "ACTIVITY_TASK_RETRYING" || event.name === "ACTIVITY_TASK_STARTED" || event.name === "CUSTOM_TASK_STARTED") {
      progress.status = "RUNNING";
      progress.end_time_unix_ms = null;
    }
  }
  return merged;
}

/**
 * The span tree: the run is the root span, with the workflow's own events (internal ones left out); each
 * activity or custom task is a child span with its events; the spans the span writer kept in the run's trace
 * (its model calls) hang under their parent span when it is in the tree, else under the run.
 */
export function spanTreeOf(run: RunRecord, entries: readonly HistoryEntry[], kept: readonly KeptSpan[]): TraceSpan {
  const events = traceEventsOf(entries).filter((event) => !event.internal);
  const root: TraceSpan = {
    span_id: derivedSpanId("run", run.runId),
    name: run.workflowName,
    start_time_unix_nano: microsOfIso(run.startTime),
    end_time_unix_nano: run.endTime ? microsOfIso(run.endTime) : null,
    attributes: {
      "workflow.name": run.workflowName,
      "workflow.execution_id": run.executionId,
      "workflow.run_id": run.runId,
      "workflow.status": run.status,
      "workflow.deployment_name": run.deploymentName,
      "workflow.attempt": run.attempt,
    },
    events: [],
    children: [],
  };
  const tasks = new Map<string, TraceSpan>();
  for (const event of events) {
    const isTask = event.name.startsWith("ACTIVITY_TASK_") || event.name.startsWith("CUSTOM_TASK_");
    if (!isTask) {
      root.events.push(event);
      continue;
    }
    let span = tasks.get(event.id);
    if (!span) {
      const activity = event.attributes.activity_name ?? event.attributes.custom_task_type;
      span = {
        span_id: derivedSpanId("task", run.runId, event.id),
        name: typeof activity === "string" ? activity : event.name,
        start_time_unix_nano: event.timestamp_unix_nano,
        end_time_unix_nano: null,
        attributes: { "workflow.task_id": event.id, ...(typeof activity === "string" ? { "workflow.activity_name": activity } : {}) },
        events: [],
        children: [],
      };
      tasks.set(event.id, span);
      root.children.push(span);
    }
    span.events.push(event);
    const ended = ENDED[event.name];
    span.attributes["workflow.task_status"] = ended ?? "RUNNING";
    span.end_time_unix_nano = ended ? event.timestamp_unix_nano : null;
  }
  const byId = new Map<string, TraceSpan>([[root.span_id, root], ...[...tasks.values()].map((span) => [span.span_id, span] as const)]);
  const keptSpans = kept.map((span) => {
    const node: TraceSpan = {
      span_id: span.span_id,
      name: span.span_name,
      start_time_unix_nano: microsOfIso(span.start_time),
      end_time_unix_nano: span.end_time ? microsOfIso(span.end_time) : null,
      attributes: {
        "span.status": span.status_code,
        ...(span.operation_name ? { "gen_ai.operation.name": span.operation_name } : {}),
        ...(span.request_model ? { "gen_ai.request.model": span.request_model } : {}),
        ...(span.tool_name ? { "gen_ai.tool.name": span.tool_name } : {}),
      },
      events: [],
      children: [],
    };
    byId.set(span.span_id, node);
    return { node, parent: span.parent_span_id };
  });
  for (const { node, parent } of keptSpans) (parent !== node.span_id ? (byId.get(parent) ?? root) : root).children.push(node);
  return root;
}
