import type { RowInput } from "../route-row.js";

/**
 * Evaluation pipeline configurations (docs/observability/pipelines.md, decision 65): as extensions, the SDK's
 * `beta.observability.evaluations` pipeline calls at Mistral's paths with Mistral's shapes, and a run on demand.
 * They live in the datasets table. Rows without a permission take the area's (observability:read on GET,
 * observability:write otherwise).
 */
// Create and update check a judge's or moderation's model against the catalog (a pipeline that cannot run is refused when saved).
const checked = { tables: { datasets: "readwrite", models: "read" } } as const;
const base = "/v1/observability/pipeline-configs";

export const pipelineRows: RowInput[] = [
  { method: "POST", path: base, handler: "observability/create-pipeline-config", doc: { status: 201 }, grants: checked, extension: true },
  { method: "GET", path: base, handler: "observability/list-pipeline-configs", grants: { tables: { datasets: "read" } }, extension: true },
  { method: "GET", path: `${base}/{pipeline_config_id}`, handler: "observability/get-pipeline-config", grants: { tables: { datasets: "read" } }, extension: true },
  { method: "PUT", path: `${base}/{pipeline_config_id}`, handler: "observability/update-pipeline-config", grants: checked, extension: true },
  { method: "DELETE", path: `${base}/{pipeline_config_id}`, handler: "observability/delete-pipeline-config", doc: { status: 204 }, grants: { tables: { datasets: "readwrite" } }, extension: true },
  // One sweep now: reads the workspace's telemetry (the search engine), runs the kind's model calls (catalog, spend
  // limit, usage, their spans) and writes span evaluations (appended, counted on their traces).
  {
    method: "POST",
    path: `${base}/{pipeline_config_id}/run`,
    handler: "observability/run-pipeline-config",
    grants: { tables: { datasets: "readwrite", models: "read", usage: "readwrite", tenancy: "read", telemetry: "write" }, models: "invoke", telemetry: "query-write" },
    extension: true,
    doc: { summary: "Run an evaluation pipeline once now" },
  },
];
