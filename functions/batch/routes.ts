import { area } from "../route-row.js";

export const batchRoutes = area({ permissions: { read: "batch:read", write: "batch:write" } }, [
  { method: "GET", path: "/v1/batch/jobs", handler: "batch/list", grants: { tables: { batch: "read" } } },
  // Create reads every input line before it answers (files up to 512 MB): 1769 MB is one full vCPU for it.
  { method: "POST", path: "/v1/batch/jobs", handler: "batch/create", grants: { tables: { batch: "write", files: "read", models: "read", agents: "read" }, files: "readwrite", executions: { batch: "start-stop" } }, memoryMb: 1769 },
  { method: "GET", path: "/v1/batch/jobs/{job_id}", handler: "batch/retrieve", grants: { tables: { batch: "read", files: "read" }, files: "read" } },
  { method: "DELETE", path: "/v1/batch/jobs/{job_id}", handler: "batch/delete", grants: { tables: { batch: "readwrite" }, files: "delete", executions: { batch: "start-stop" } } },
  { method: "POST", path: "/v1/batch/jobs/{job_id}/cancel", handler: "batch/cancel", grants: { tables: { batch: "readwrite" }, executions: { batch: "start-stop" } } },
]);
