import type { Caller } from "../../domain/caller.js";
import { BUILTIN_QUERIES, declaredHandler, readPath } from "../../domain/workflows/inbox.js";
import { inboxStore } from "../../store/workflows/inbox.js";
import { publishedStateStore } from "../../store/workflows/published-state.js";
import { runStore } from "../../store/workflows/runs.js";
import { handlerCall } from "./signals.js";

/**
 * Queries (docs/workflows.md, "Signals, updates and queries"): nothing can run code inside a running
 * Step Functions execution, so a query answers from the run's **published state** (the last
 * `platform:publish_state`), as of that Task: a declared query's `projection` (a JSONPath reference path,
 * `$` by default) over it; `__state` is the whole document, `__status` where the run is.
 */
export async function query(caller: Pick<Caller, "workspace">, executionId: string, body: { name: string; input?: unknown }): Promise<{ query_name: string; result: unknown }> {
  const { run, registration } = await handlerCall(caller, executionId, "queries", body.name, body.input, BUILTIN_QUERIES);
  const published = await publishedStateStore.get(caller.workspace, run.runId);
  if (body.name === "__status") {
    const waiting = (await inboxStore.waiters(caller.workspace, executionId)).filter((waiter) => waiter.runId === run.runId);
    const pending = (await inboxStore.messages(caller.workspace, executionId)).filter((message) => message.status === "PENDING");
    // The dispatcher saves a Task's checkpoint before it registers the Task's waiter: the run read after
    // the waiters is never behind them (the run read before may be).
    const now = (await runStore.get(caller.workspace, run.runId)) ?? run;
    return {
      query_name: body.name,
      result: {
        status: now.status,
        execution_id: now.executionId,
        run_id: now.runId,
        current_state: now.checkpoint?.state ?? null,
        waiting_for: waiting.map((waiter) => ({ kind: waiter.kind, name: waiter.name, state: waiter.state })),
        pending_signals: pending.filter((message) => message.kind === "signal").length,
        pending_updates: pending.filter((message) => message.kind === "update").length,
        state_published_at: published ? new Date(published.publishedAtMs).toISOString() : null,
      },
    };
  }
  const state = published?.state ?? null;
  if (body.name === "__state") return { query_name: body.name, result: state };
  const projection = declaredHandler(registration.definition, "queries", body.name) as { projection?: string } | undefined;
  return { query_name: body.name, result: readPath(state, projection?.projection ?? "$") ?? null };
}
