import { area } from "../route-row.js";

export const retrievalRoutes = area({ permissions: { read: "retrieval:read", write: "retrieval:write" } }, [
  { method: "GET", path: "/v1/rag/deployments", handler: "retrieval/list-deployments", grants: { tables: { retrieval: "read" } } },
  { method: "PUT", path: "/v1/rag/deployments", handler: "retrieval/register-deployment", grants: { tables: { retrieval: "write" } } },
  { method: "DELETE", path: "/v1/rag/deployments/{deployment_id}", handler: "retrieval/unregister-deployment", grants: { tables: { retrieval: "readwrite" } } },
  { method: "PUT", path: "/v1/rag/deployments/{deployment_id}/metrics", handler: "retrieval/update-metrics", grants: { tables: { retrieval: "readwrite" } } },
  { method: "GET", path: "/v1/rag/ingestion_pipeline_configurations", handler: "retrieval/list-pipelines", grants: { tables: { retrieval: "read" } } },
  { method: "PUT", path: "/v1/rag/ingestion_pipeline_configurations", handler: "retrieval/register-pipeline", grants: { tables: { retrieval: "write" } } },
  { method: "PUT", path: "/v1/rag/ingestion_pipeline_configurations/{id}/run_info", handler: "retrieval/update-run-info", grants: { tables: { retrieval: "readwrite" } } },
]);
