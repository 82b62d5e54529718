import type { RowInput } from "../route-row.js";

/**
 * Saved judges (docs/observability/datasets.md "Judges", decision 61): as extensions, the SDK's
 * `beta.observability.judges.*` calls at Mistral's paths with Mistral's shapes. Judges live in the datasets table.
 * Rows without a permission take the area's (observability:read on GET, observability:write otherwise).
 */
// Create and update check the judge's model against the catalog (a judge that cannot run is refused when saved).
const checked = { tables: { datasets: "readwrite", models: "read" } } as const;

export const judgeRows: RowInput[] = [
  { method: "POST", path: "/v1/observability/judges", handler: "observability/create-judge", doc: { status: 201 }, grants: checked, extension: true },
  { method: "GET", path: "/v1/observability/judges", handler: "observability/list-judges", grants: { tables: { datasets: "read" } }, extension: true },
  { method: "GET", path: "/v1/observability/judges/{judge_id}", handler: "observability/get-judge", grants: { tables: { datasets: "read" } }, extension: true },
  { method: "PUT", path: "/v1/observability/judges/{judge_id}", handler: "observability/update-judge", doc: { status: 204 }, grants: checked, extension: true },
  { method: "DELETE", path: "/v1/observability/judges/{judge_id}", handler: "observability/delete-judge", doc: { status: 204 }, grants: { tables: { datasets: "readwrite" } }, extension: true },
  // Runs the saved judge through the providers (catalog, spend limit, usage; a model call's span), as live judging of a record does; nothing else is stored.
  {
    method: "POST",
    path: "/v1/observability/judges/{judge_id}/live-judging",
    handler: "observability/judge-conversation",
    grants: { tables: { datasets: "read", models: "read", usage: "readwrite", tenancy: "read", telemetry: "write" }, models: "invoke", telemetry: "write" },
    extension: true,
  },
];
