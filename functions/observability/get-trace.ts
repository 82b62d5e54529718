import { route } from "../route.js";
import { TraceOut, TraceParams } from "../../shared/schemas/observability/ingest.js";
import { getTrace } from "../../shared/services/observability/point-reads.js";

export const handler = route({ params: TraceParams, response: TraceOut }, ({ params, caller }) => getTrace(caller, params.trace_id));
