import { ExecutionParams } from "../../shared/schemas/workflows.js";
import { TraceEventsOut, TraceEventsQuery } from "../../shared/schemas/workflow-traces.js";
import * as traces from "../../shared/services/workflows/traces.js";
import { route } from "../route.js";

/** The latest run's history as trace events; `merge_same_id_events` folds each task's events into one progress event. */
export const handler = route({ params: ExecutionParams, query: TraceEventsQuery, response: TraceEventsOut }, async ({ params, query, caller }) =>
  traces.traceEvents(caller, params.execution_id, { merge: query.merge_same_id_events, internal: query.include_internal_events }),
);
