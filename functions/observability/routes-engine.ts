import type { RowInput } from "../route-row.js";

const query = { telemetry: "query" } as const;
const base = "/v1/observability";

/** The analytical engine's rows (docs/observability/engine.md): searches, aggregations, field catalogues and options; all observability:read. */
export const engineRows: RowInput[] = [
  { method: "POST", path: `${base}/spans/search`, handler: "observability/search-spans", grants: query, permission: "observability:read" },
  { method: "POST", path: `${base}/spans/evaluations/search`, handler: "observability/search-span-evaluations", grants: query, permission: "observability:read" },
  { method: "POST", path: `${base}/spans/evaluations/search/latest`, handler: "observability/search-latest-span-evaluations", grants: query, permission: "observability:read" },
  { method: "POST", path: `${base}/traces/search`, handler: "observability/search-traces", grants: query, permission: "observability:read" },
  { method: "POST", path: `${base}/logs/search`, handler: "observability/search-logs", grants: query, permission: "observability:read" },
  { method: "POST", path: `${base}/spans/aggregate`, handler: "observability/aggregate-spans", grants: query, permission: "observability:read" },
  { method: "POST", path: `${base}/spans/evaluations/aggregate`, handler: "observability/aggregate-span-evaluations", grants: query, permission: "observability:read" },
  { method: "POST", path: `${base}/traces/aggregate`, handler: "observability/aggregate-traces", grants: query, permission: "observability:read" },
  { method: "GET", path: `${base}/spans/fields`, handler: "observability/span-fields", grants: {} },
  { method: "GET", path: `${base}/spans/evaluations/fields`, handler: "observability/span-evaluation-fields", grants: {} },
  { method: "GET", path: `${base}/traces/fields`, handler: "observability/trace-fields", grants: {} },
  { method: "GET", path: `${base}/logs/fields`, handler: "observability/log-fields", grants: {} },
  { method: "GET", path: `${base}/spans/fields/{field_name}/options`, handler: "observability/span-field-options", grants: query },
  { method: "GET", path: `${base}/spans/evaluations/fields/{field_name}/options`, handler: "observability/span-evaluation-field-options", grants: query },
  { method: "GET", path: `${base}/traces/fields/{field_name}/options`, handler: "observability/trace-field-options", grants: query },
  { method: "GET", path: `${base}/logs/fields/{field_name}/options`, handler: "observability/log-field-options", grants: query },
];
