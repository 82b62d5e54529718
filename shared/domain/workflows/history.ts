import type { WorkflowEvent } from "./events.js";
import type { InboxMessage, RunStep } from "./inbox.js";

/**
 * A run's history (reference/workflows.md §1.5): Temporal's `History` in JSON, `{events: [{eventId, eventTime,
 * eventType: "EVENT_TYPE_…", <type>EventAttributes}]}`, merged from the run's workflow events (§1.4: its
 * start, activities, custom tasks and end), the top-level states it entered (`EVENT_TYPE_WORKFLOW_TASK_COMPLETED`,
 * the points a reset may go back to) and its inbox (signals and updates). Event ids are positions, 1…n, in
 * time order: a closed run's never change.
 */

/** A payload as the history keeps it before rendering (encoded or, with `decode_payloads`, as JSON). */
export interface HistoryPayload {
  __payload: unknown;
}

export interface HistoryEntry {
  atMs: number;
  /** Without the `EVENT_TYPE_` prefix. */
  type: string;
  attributes: Record<string, unknown>;
  /** The step a WORKFLOW_TASK_COMPLETED stands for (what a reset re-enters). */
  step?: RunStep;
}

const payload = (value: unknown): HistoryPayload => ({ __payload: value ?? null });

/** A workflow event's JSONPayloadResponse fields become payloads; the rest is kept as is. */
function eventAttributes(attributes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(attributes).map(([key, value]) => {
      const isPayload = typeof value === "object" && value !== null && (value as { type?: unknown }).type === "json" && "value" in value;
      return [key, isPayload ? payload((value as { value: unknown }).value) : value];
    }),
  );
}

/** The entries of run `runId`, in time order (ties keep the order of their sources: events, steps, inbox). */
export function historyEntries(runId: string, events: readonly WorkflowEvent[], steps: readonly RunStep[], messages: readonly InboxMessage[]): HistoryEntry[] {
  const entries: HistoryEntry[] = [];
  for (const event of events) {
    if (event.workflow_run_id !== runId) continue;
    entries.push({ atMs: Math.floor(event.event_timestamp / 1000), type: event.event_type, attributes: { event_id: event.event_id, ...eventAttributes(event.attributes) } });
  }
  for (const step of steps) {
    entries.push({ atMs: step.atMs, type: "WORKFLOW_TASK_COMPLETED", attributes: { state_name: step.state, input: payload(step.input) }, step });
  }
  for (const message of messages) {
    const received = message.runId === runId;
    const delivered = message.deliveredRunId === runId;
    if (!received && !delivered) continue;
    const common = { inbox_sequence: message.seq, input: payload(message.input) };
    if (message.kind === "signal") {
      entries.push({ atMs: received ? message.receivedAtMs : message.deliveredAtMs!, type: "WORKFLOW_EXECUTION_SIGNALED", attributes: { signal_name: message.name, ...common } });
      continue;
    }
    const update = { update_id: message.id, update_name: message.name };
    if (received) entries.push({ atMs: message.receivedAtMs, type: "WORKFLOW_EXECUTION_UPDATE_ADMITTED", attributes: { ...update, ...common } });
    if (message.status === "EXPIRED" && received) {
      entries.push({ atMs: message.receivedAtMs, type: "WORKFLOW_EXECUTION_UPDATE_REJECTED", attributes: { ...update, failure: { message: "Not taken by the workflow before its caller's deadline" } } });
    }
    if (delivered && message.deliveredAtMs) entries.push({ atMs: message.deliveredAtMs, type: "WORKFLOW_EXECUTION_UPDATE_ACCEPTED", attributes: { ...update, inbox_sequence: message.seq } });
    if (delivered && message.status === "COMPLETED" && message.completedAtMs) {
      entries.push({
        atMs: message.completedAtMs,
        type: "WORKFLOW_EXECUTION_UPDATE_COMPLETED",
        attributes: { ...update, ...(message.error ? { failure: message.error } : { result: payload(message.result) }) },
      });
    }
  }
  // Stable: equal times keep the sources' order.
  return entries.map((entry, i) => ({ entry, i })).sort((a, b) => a.entry.atMs - b.entry.atMs || a.i - b.i).map(({ entry }) => entry);
}

/** JSON payloads as Temporal encodes them (`json/plain`, base64), or the value itself when decoding. */
const JSON_PLAIN = Buffer.from("json/plain").toString("base64");

function render(value: unknown, decode: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => render(item, decode));
  if (typeof value !== "object" || value === null) return value;
  if ("__payload" in value) {
    const inner = (value as HistoryPayload).__payload;
    return decode ? inner : { metadata: { encoding: JSON_PLAIN }, data: Buffer.from(JSON.stringify(inner ?? null)).toString("base64") };
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, render(item, decode)]));
}

const camel = (snake: string) => snake.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The wire form: `{eventId, eventTime, eventType, <camel type>EventAttributes}` (attributes as the API's events name them). */
export function renderHistory(entries: readonly HistoryEntry[], decode: boolean): { events: Record<string, unknown>[] } {
  return {
    events: entries.map((entry, i) => ({
      eventId: String(i + 1),
      eventTime: new Date(entry.atMs).toISOString(),
      eventType: `EVENT_TYPE_${entry.type}`,
      [`${camel(entry.type)}EventAttributes`]: render(entry.attributes, decode),
    })),
  };
}

/** The ids a reset may name: the WORKFLOW_TASK_COMPLETED events. */
export const resetPoints = (entries: readonly HistoryEntry[]): number[] => entries.flatMap((entry, i) => (entry.step ? [i + 1] : []));
