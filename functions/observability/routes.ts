import { area } from "../route-row.js";
import { datasetRows } from "./routes-datasets.js";
import { engineRows } from "./routes-engine.js";
import { ingestRows } from "./routes-ingest.js";
import { judgeRows } from "./routes-judges.js";
import { pipelineRows } from "./routes-pipelines.js";

/**
 * Observability (beta), docs/observability.md: search, aggregation and fields (routes-engine.ts), telemetry in and
 * point reads (routes-ingest.ts), datasets, records and live judging (routes-datasets.ts), saved judges (routes-judges.ts), evaluation pipelines (routes-pipelines.ts).
 */
export const observabilityRoutes = area({ errors: "observability", permissions: { read: "observability:read", write: "observability:write" } }, [...engineRows, ...ingestRows, ...datasetRows, ...judgeRows, ...pipelineRows]);
