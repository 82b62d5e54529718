/**
 * The engine's handlers, one factory per operation shape (search, aggregate, fields, options): each
 * handler file of the area binds one to its kind. Thin: parse → shared/services/observability/engine.ts.
 */
import type { TelemetryKind } from "../../shared/domain/observability/records.js";
import {
  AggregationBody,
  AggregationOut,
  FieldDefinitionsOut,
  FieldOptionsOut,
  FieldParams,
  LogsPage,
  LogsSearchBody,
  SearchBody,
  SearchQuery,
  SpanEvaluationsPage,
  SpansPage,
  TracesPage,
  WindowQuery,
} from "../../shared/schemas/observability/engine.js";
import { aggregateTelemetry, fieldOptions, fieldsOf, searchTelemetry } from "../../shared/services/observability/engine.js";
import { route } from "../route.js";

const pages = { spans: SpansPage, span_evaluations: SpanEvaluationsPage, traces: TracesPage, logs: LogsPage };

/** POST …/search: `{<kind>: {results, next, cursor}}`; `latest` keeps the newest evaluation per (span, name). */
export const searchHandler = (kind: TelemetryKind, options: { latest?: boolean } = {}) =>
  route({ query: SearchQuery, body: kind === "logs" ? LogsSearchBody : SearchBody, optionalBody: true, response: pages[kind] }, async ({ query, body, caller, signal }) => ({
    [kind]: await searchTelemetry(caller.workspace, kind, { ...query, search_expression: body?.search_expression, order: body && "order" in body ? (body.order as "asc" | "desc") : "desc", latest: options.latest }, { signal }),
  }));

/** POST …/aggregate: one metric by dimensions and time buckets. */
export const aggregateHandler = (kind: TelemetryKind) =>
  route({ query: WindowQuery, body: AggregationBody, response: AggregationOut }, ({ query, body, caller, signal }) => aggregateTelemetry(caller.workspace, kind, query, body, { signal }));

/** GET …/fields: the kind's field catalogue. */
export const fieldsHandler = (kind: TelemetryKind) => route({ response: FieldDefinitionsOut }, async () => fieldsOf(kind));

/** GET …/fields/{field_name}/options: distinct values of an ENUM field in the window. */
export const optionsHandler = (kind: TelemetryKind) =>
  route({ params: FieldParams, query: WindowQuery, response: FieldOptionsOut }, ({ params, query, caller }) => fieldOptions(caller.workspace, kind, params.field_name, query));
