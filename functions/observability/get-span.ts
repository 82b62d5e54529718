import { route } from "../route.js";
import { SpanOut, SpanParams, SpanWindowQuery } from "../../shared/schemas/observability/ingest.js";
import { getSpan } from "../../shared/services/observability/point-reads.js";

/** `from`/`to` are accepted as the reference lists them; a span is found by its ids alone. */
export const handler = route({ params: SpanParams, query: SpanWindowQuery, response: SpanOut }, ({ params, caller }) => getSpan(caller, params.trace_id, params.span_id));
