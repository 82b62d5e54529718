import { route } from "../route.js";
import { SpansOut, SpansQuery, TraceParams } from "../../shared/schemas/observability/ingest.js";
import { getTraceSpans } from "../../shared/services/observability/point-reads.js";

export const handler = route({ params: TraceParams, query: SpansQuery, response: SpansOut }, ({ params, query, caller }) => getTraceSpans(caller, params.trace_id, query));
