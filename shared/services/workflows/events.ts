import type { Caller } from "../../domain/caller.js";
import { InvalidPageToken } from "../../domain/errors.js";
import type { StoredWorkflowEvent, WorkflowEvent } from "../../domain/workflows/events.js";
import type { EventListQuery } from "../../schemas/workflows.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";
import { eventPartitionPrefix, eventStore } from "../../store/workflows/events.js";
import { runStore } from "../../store/workflows/runs.js";
import * as z from "zod";

/**
 * GET /v1/workflows/events/list (docs/workflows.md, "Events"): one root execution's events in sequence
 * order (a root named directly, or through one of its executions or runs, whose events alone are kept), or
 * with no id the workspace's latest events, newest first.
 */

const rootCursor = z.strictObject({ r: z.string().min(1).max(256), s: z.number().int().min(0), e: z.string().max(256).nullable(), u: z.string().max(256).nullable() });
const recentCursor = z.strictObject({ pk: z.string().max(1200), sk: z.string().startsWith("SEQ#").max(40), k: z.string().max(1200) });

/** Where the listed events come from, and which of them are kept. */
interface Scope {
  root: string;
  execution: string | null;
  run: string | null;
}

async function scopeOf(caller: Pick<Caller, "workspace">, query: EventListQuery): Promise<Scope | null | undefined> {
  if (query.workflow_run_id) {
    const run = await runStore.get(caller.workspace, query.workflow_run_id);
    return run ? { root: run.rootExecutionId, execution: null, run: run.runId } : null;
  }
  if (query.workflow_exec_id) {
    const execution = await runStore.getExecution(caller.workspace, query.workflow_exec_id);
    return execution ? { root: execution.rootExecutionId, execution: execution.executionId, run: null } : null;
  }
  if (query.root_workflow_exec_id) return { root: query.root_workflow_exec_id, execution: null, run: null };
  return undefined;
}

const keeps = (scope: Scope) => (event: WorkflowEvent) =>
  (scope.execution === null || event.workflow_exec_id === scope.execution) && (scope.run === null || event.workflow_run_id === scope.run);

export async function listEvents(caller: Pick<Caller, "workspace">, query: EventListQuery): Promise<{ events: WorkflowEvent[]; nextCursor: string | null }> {
  const token = query.cursor === undefined ? undefined : query.cursor;
  const scope = await scopeOf(caller, query);
  if (scope === null) {
    if (token !== undefined) readCursor(token, rootCursor, "cursor");
    return { events: [], nextCursor: null };
  }
  if (scope === undefined) return listRecent(caller.workspace, query.limit, token);

  let from = 0;
  if (token !== undefined) {
    const position = readCursor(token, rootCursor, "cursor");
    // A cursor of another listing names a position in other events.
    if (position.r !== scope.root || position.e !== scope.execution || position.u !== scope.run) throw new InvalidPageToken("cursor");
    from = position.s;
  }
  const keep = keeps(scope);
  const events: StoredWorkflowEvent[] = [];
  let next = from;
  for (;;) {
    const batch = Math.min(1000, Math.max(query.limit - events.length, 100));
    const page = await eventStore.listFrom(caller.workspace, scope.root, next, batch);
    for (const stored of page) {
      next = stored.seq + 1;
      if (keep(stored.event)) events.push(stored);
      if (events.length === query.limit) break;
    }
    if (events.length === query.limit || page.length < batch) break;
  }
  const more = events.length === query.limit;
  return {
    events: events.map((e) => e.event),
    nextCursor: more ? encodeCursor({ r: scope.root, s: next, e: scope.execution, u: scope.run }) : null,
  };
}

async function listRecent(workspace: string, limit: number, token: string | undefined): Promise<{ events: WorkflowEvent[]; nextCursor: string | null }> {
  const position = token === undefined ? undefined : readCursor(token, recentCursor, "cursor");
  // The position must be in one of this workspace's event partitions: another's is not a place in this list.
  if (position && !position.pk.startsWith(eventPartitionPrefix(workspace))) throw new InvalidPageToken("cursor");
  const page = await eventStore.listRecent(workspace, limit, position ? { pk: position.pk, sk: position.sk, eventKey: position.k } : undefined);
  return {
    events: page.items.map((e) => e.event),
    nextCursor: page.last ? encodeCursor({ pk: page.last.pk, sk: page.last.sk, k: page.last.eventKey }) : null,
  };
}
