import type { RowInput } from "../route-row.js";

/**
 * obs-ingest's rows of the observability area (docs/observability/ingest.md): the point reads of traces and
 * spans from the telemetry table.
 */
const pointRead = { tables: { telemetry: "read" } } as const;

export const ingestRows: RowInput[] = [
  { method: "GET", path: "/v1/observability/traces/{trace_id}", handler: "observability/get-trace", grants: pointRead },
  { method: "GET", path: "/v1/observability/traces/{trace_id}/spans", handler: "observability/get-trace-spans", grants: pointRead },
  { method: "GET", path: "/v1/observability/traces/{trace_id}/spans/{span_id}", handler: "observability/get-span", grants: pointRead },
];
