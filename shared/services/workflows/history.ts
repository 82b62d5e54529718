import type { Caller } from "../../domain/caller.js";
import type { WorkflowEvent } from "../../domain/workflows/events.js";
import { historyEntries, renderHistory, type HistoryEntry } from "../../domain/workflows/history.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { eventStore } from "../../store/workflows/events.js";
import { inboxStore } from "../../store/workflows/inbox.js";
import { getRun, latestRun } from "./executions.js";
import { CLOSING_EVENT_WAIT_MS, closingEventOf } from "./run-close.js";

/**
 * Histories (docs/workflows.md, "History"): GET …/executions/{id}/history (its latest run) and
 * GET …/runs/{run_id}/history. Built from the run's events, steps and inbox; a run closed for a while is
 * built once and cached (a closed run does not change).
 */

/** A run closed this long ago, with its closing event read, has every event it will ever have: its history is cached. */
const SETTLED_MS = 5_000;
const PAGE = 1000;
/** How often a history read that found a run closed without its closing event looks again. */
const CLOSING_EVENT_POLL_MS = 50;

async function eventsOfRoot(workspace: string, root: string): Promise<WorkflowEvent[]> {
  const events: WorkflowEvent[] = [];
  for (let from = 0; ; ) {
    const page = await eventStore.listFrom(workspace, root, from, PAGE);
    events.push(...page.map((stored) => stored.event));
    if (page.length < PAGE) return events;
    from = page.at(-1)!.seq + 1;
  }
}

/** The run's history entries (internal form, with payloads and reset points). */
export async function entriesOf(run: RunRecord, options: { fresh?: boolean } = {}): Promise<HistoryEntry[]> {
  const settled = isClosed(run.status) && run.endTime !== null && Date.now() - Date.parse(run.endTime) > SETTLED_MS;
  if (settled && !options.fresh) {
    const cached = await inboxStore.cachedHistory(run.workspace, run.runId);
    if (cached) return cached as HistoryEntry[];
  }
  const [read, steps, messages] = await Promise.all([
    eventsOfRoot(run.workspace, run.rootExecutionId),
    inboxStore.steps(run.workspace, run.runId),
    inboxStore.messages(run.workspace, run.executionId),
  ]);
  let events = read;
  // A close moves the run first and writes its closing event just after: a history read in between waits for the
  // event (as the event stream does), so a run read COMPLETED never has a history without its end. Past the wait the
  // history is served without it, and not cached.
  const closing = closingEventOf(run.status);
  const complete = () => !closing || events.some((e) => e.workflow_run_id === run.runId && e.event_type === closing);
  const closedAt = run.endTime === null ? Number.NaN : Date.parse(run.endTime);
  while (!complete() && Date.now() - closedAt < CLOSING_EVENT_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, CLOSING_EVENT_POLL_MS));
    events = await eventsOfRoot(run.workspace, run.rootExecutionId);
  }
  const entries = historyEntries(run.runId, events, steps, messages);
  if (settled && complete()) await inboxStore.cacheHistory(run.workspace, run.runId, entries);
  return entries;
}

export async function executionHistory(caller: Pick<Caller, "workspace">, executionId: string, decode: boolean) {
  return renderHistory(await entriesOf(await latestRun(caller, executionId)), decode);
}

export async function runHistory(caller: Pick<Caller, "workspace">, runId: string, decode: boolean) {
  return renderHistory(await entriesOf(await getRun(caller, runId)), decode);
}
