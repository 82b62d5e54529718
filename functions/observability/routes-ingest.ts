import type { RowInput } from "../route-row.js";

/**
 * obs-ingest's rows of the observability area (docs/observability/ingest.md): the point reads of traces and
 * spans from the telemetry table, and OTLP/HTTP ingest. The ingest paths are not under /v1: the official SDK's
 * configureTelemetry exports to `<root of its server URL>/telemetry/v1/traces` (extensions: not in the spec).
 */
const pointRead = { tables: { telemetry: "read" } } as const;
const ingest = { tables: { telemetry: "write" }, telemetry: "write" } as const;

export const ingestRows: RowInput[] = [
  { method: "GET", path: "/v1/observability/traces/{trace_id}", handler: "observability/get-trace", grants: pointRead },
  { method: "GET", path: "/v1/observability/traces/{trace_id}/spans", handler: "observability/get-trace-spans", grants: pointRead },
  { method: "GET", path: "/v1/observability/traces/{trace_id}/spans/{span_id}", handler: "observability/get-span", grants: pointRead },
  { method: "POST", path: "/telemetry/v1/traces", handler: "observability/otlp-traces", grants: ingest, extension: true, memoryMb: 1024, doc: { summary: "Export traces (OTLP/HTTP, JSON or protobuf)" } },
  { method: "POST", path: "/telemetry/v1/logs", handler: "observability/otlp-logs", grants: { telemetry: "write" }, extension: true, memoryMb: 1024, doc: { summary: "Export logs (OTLP/HTTP, JSON or protobuf)" } },
];
