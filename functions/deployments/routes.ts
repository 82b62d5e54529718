import { area, type Grants } from "../route-row.js";

/**
 * Workflow deployments (docs/workflows.md, "Deployments"): worker pools and managed deployment records.
 * Reads need workflows:read, the verbs workflows:write, unharden service-accounts:manage (workspace admins: hardening is about which keys and service accounts may act). Errors are the workflow
 * family's (WF_ codes). The verbs answer 202 with a ManagedDeploymentResponse (decision 0017).
 */
const reads: Grants = { tables: { workflows: "read" } };
const writes: Grants = { tables: { workflows: "readwrite" } };

export const deploymentRoutes = area({ errors: "workflow", permissions: { read: "workflows:read", write: "workflows:write" } }, [
  { method: "GET", path: "/v1/workflows/deployments", handler: "deployments/list", grants: reads },
  { method: "POST", path: "/v1/workflows/deployments", handler: "deployments/create", doc: { status: 202 }, grants: writes },
  { method: "GET", path: "/v1/workflows/deployments/{name}", handler: "deployments/get", grants: reads },
  { method: "PATCH", path: "/v1/workflows/deployments/{name}", handler: "deployments/update", doc: { status: 202 }, grants: writes },
  // Reads the runs (a running execution refuses an unforced delete).
  { method: "DELETE", path: "/v1/workflows/deployments/{name}", handler: "deployments/delete", doc: { status: 202 }, grants: { tables: { workflows: "readwrite", executions: "read" } } },
  { method: "POST", path: "/v1/workflows/deployments/{name}/stop", handler: "deployments/stop", doc: { status: 202 }, grants: writes },
  { method: "POST", path: "/v1/workflows/deployments/{name}/start", handler: "deployments/start", doc: { status: 202 }, grants: writes },
  { method: "POST", path: "/v1/workflows/deployments/{name}/restart", handler: "deployments/restart", doc: { status: 202 }, grants: writes },
  { method: "GET", path: "/v1/workflows/deployments/{name}/workers", handler: "deployments/workers", grants: reads },
  // Extensions (issue 29): the log lines of the deployment's runs, kept in the executions table (decision 0064).
  { method: "GET", path: "/v1/workflows/deployments/{name}/logs", handler: "deployments/logs", grants: { tables: { workflows: "read", executions: "read" } }, extension: true },
  { method: "GET", path: "/v1/workflows/deployments/{name}/logs/stream", handler: "deployments/logs-stream", grants: { tables: { workflows: "read", executions: "read" } }, streaming: true, extension: true },
  // Extension: adds and removes the principals that alone may register into the deployment (hardening).
  { method: "POST", path: "/v1/workflows/deployments/{name}/principals", handler: "deployments/principals", grants: writes, permission: "service-accounts:manage", extension: true, audit: "deployment.principals" },
  { method: "POST", path: "/v1/workflows/deployments/{deployment_id}/unharden", handler: "deployments/unharden", grants: writes, permission: "service-accounts:manage", audit: "deployment.unharden" },
]);
