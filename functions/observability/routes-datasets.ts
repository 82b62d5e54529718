import type { RowInput } from "../route-row.js";

/**
 * Datasets and dataset records (docs/observability/datasets.md, decision 41): the spec's six record rows, and
 * as extensions the SDK's dataset and record calls that make records at all (`beta.observability.datasets.*`),
 * plus records made from spans, and the SDK's imports, export and import tasks. Rows without a permission take the area's (observability:read on GET,
 * observability:write otherwise).
 */
export const datasetRows: RowInput[] = [
  { method: "GET", path: "/v1/observability/dataset-records/{dataset_record_id}", handler: "observability/get-dataset-record", grants: { tables: { datasets: "read" } } },
  { method: "DELETE", path: "/v1/observability/dataset-records/{dataset_record_id}", handler: "observability/delete-dataset-record", doc: { status: 204 }, grants: { tables: { datasets: "write" } } },
  // All or nothing: the ids are read first (an unknown one is a 404 naming it), then deleted.
  { method: "POST", path: "/v1/observability/dataset-records/bulk-delete", handler: "observability/bulk-delete-dataset-records", doc: { status: 204 }, grants: { tables: { datasets: "readwrite" } } },
  // Calls the judge's model through the providers (catalog, spend limit, usage; a model call's span) and stores the judgement as a span evaluation (appended, and counted per trace).
  {
    method: "POST",
    path: "/v1/observability/dataset-records/{dataset_record_id}/live-judging",
    handler: "observability/judge-dataset-record",
    grants: { tables: { datasets: "read", models: "read", usage: "readwrite", tenancy: "read", telemetry: "write" }, models: "invoke", telemetry: "write" },
  },
  { method: "PUT", path: "/v1/observability/dataset-records/{dataset_record_id}/payload", handler: "observability/replace-dataset-record-payload", doc: { status: 204 }, grants: { tables: { datasets: "readwrite" } } },
  { method: "PUT", path: "/v1/observability/dataset-records/{dataset_record_id}/properties", handler: "observability/replace-dataset-record-properties", doc: { status: 204 }, grants: { tables: { datasets: "readwrite" } } },
  // Extensions: the SDK's beta.observability.datasets calls that make datasets and records (Mistral's paths and shapes).
  { method: "POST", path: "/v1/observability/datasets", handler: "observability/create-dataset", doc: { status: 201 }, grants: { tables: { datasets: "write" } }, extension: true },
  { method: "GET", path: "/v1/observability/datasets", handler: "observability/list-datasets", grants: { tables: { datasets: "read" } }, extension: true },
  { method: "GET", path: "/v1/observability/datasets/{dataset_id}", handler: "observability/get-dataset", grants: { tables: { datasets: "read" } }, extension: true },
  { method: "PATCH", path: "/v1/observability/datasets/{dataset_id}", handler: "observability/update-dataset", grants: { tables: { datasets: "readwrite" } }, extension: true },
  { method: "DELETE", path: "/v1/observability/datasets/{dataset_id}", handler: "observability/delete-dataset", doc: { status: 204 }, grants: { tables: { datasets: "readwrite" } }, extension: true },
  { method: "POST", path: "/v1/observability/datasets/{dataset_id}/records", handler: "observability/create-dataset-record", doc: { status: 201 }, grants: { tables: { datasets: "readwrite" } }, extension: true },
  { method: "GET", path: "/v1/observability/datasets/{dataset_id}/records", handler: "observability/list-dataset-records", grants: { tables: { datasets: "read" } }, extension: true },
  // Extension: records made from spans (source TELEMETRY_SPAN), read from the telemetry table's point store.
  {
    method: "POST",
    path: "/v1/observability/datasets/{dataset_id}/records/from-spans",
    handler: "observability/records-from-spans",
    doc: { status: 201 },
    grants: { tables: { datasets: "readwrite", telemetry: "read" } },
    extension: true,
  },
  // Extensions: the SDK's imports, export and import tasks (decision 62). Imports check what they name, record a RUNNING
  // task and start its execution on the dataset import state machine (202); the export is synchronous, as Mistral's is.
  { method: "POST", path: "/v1/observability/datasets/{dataset_id}/imports/from-file", handler: "observability/import-dataset-from-file", doc: { status: 202 }, grants: { tables: { datasets: "readwrite", files: "read" }, executions: { datasetImport: "start-stop" } }, extension: true },
  // Conversations are found by their model calls' gen_ai.conversation.id in the telemetry search (the task looks again for their content).
  {
    method: "POST",
    path: "/v1/observability/datasets/{dataset_id}/imports/from-playground",
    handler: "observability/import-dataset-from-playground",
    doc: { status: 202 },
    grants: { tables: { datasets: "readwrite" }, files: "write-delete", telemetry: "query", executions: { datasetImport: "start-stop" } },
    extension: true,
  },
  { method: "POST", path: "/v1/observability/datasets/{dataset_id}/imports/from-dataset", handler: "observability/import-dataset-from-dataset", doc: { status: 202 }, grants: { tables: { datasets: "readwrite" }, files: "write-delete", executions: { datasetImport: "start-stop" } }, extension: true },
  // Writes a File of the workspace and signs a download URL for it (the files routes' signing secret).
  { method: "GET", path: "/v1/observability/datasets/{dataset_id}/exports/to-jsonl", handler: "observability/export-dataset-to-jsonl", grants: { tables: { datasets: "read", files: "write", tenancy: "read" }, files: "write-delete" }, memoryMb: 1024, extension: true },
  { method: "GET", path: "/v1/observability/datasets/{dataset_id}/tasks", handler: "observability/list-dataset-tasks", grants: { tables: { datasets: "read" } }, extension: true },
  { method: "GET", path: "/v1/observability/datasets/{dataset_id}/tasks/{task_id}", handler: "observability/get-dataset-task", grants: { tables: { datasets: "read" } }, extension: true },
];
