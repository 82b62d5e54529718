import { area } from "../route-row.js";

/**
 * The worker protocol (extension routes, docs/workflows.md "Workers"): a deployment's workers register
 * their workflows, long-poll for activity tasks and report on them. Every route is a worker's, so every
 * route takes `workflows:write`; errors are the workflow family's (WF_ codes).
 */
export const workerRoutes = area({ errors: "workflow", permissions: { read: "workflows:write", write: "workflows:write" } }, [
  {
    method: "POST",
    path: "/v1/workflows/register",
    handler: "workers/register",
    grants: { tables: { workflows: "readwrite" }, workflows: { publish: true } },
    extension: true,
  },
  // Long-polls up to 20 s: within API Gateway's 29 s integration timeout and the function's default.
  { method: "POST", path: "/v1/workflows/workers/poll", handler: "workers/poll", grants: { tables: { workflows: "readwrite", executions: "readwrite" } }, extension: true },
  { method: "GET", path: "/v1/workflows/workers/whoami", handler: "workers/whoami", grants: {}, extension: true },
  {
    method: "POST",
    path: "/v1/workflows/tasks/{task_id}/heartbeat",
    handler: "workers/heartbeat",
    grants: { tables: { workflows: "readwrite", executions: "readwrite" }, workflows: { tasks: true } },
    extension: true,
  },
  {
    method: "POST",
    path: "/v1/workflows/tasks/{task_id}/complete",
    handler: "workers/complete",
    grants: { tables: { workflows: "readwrite", executions: "readwrite" }, workflows: { tasks: true } },
    extension: true,
  },
  // Its activity's log lines (decision 0064): at most 100 a request, 8,192 characters each.
  {
    method: "POST",
    path: "/v1/workflows/tasks/{task_id}/logs",
    handler: "workers/logs",
    grants: { tables: { workflows: "readwrite", executions: "readwrite" } },
    extension: true,
  },
  {
    method: "POST",
    path: "/v1/workflows/tasks/{task_id}/fail",
    handler: "workers/fail",
    grants: { tables: { workflows: "readwrite", executions: "readwrite" }, workflows: { tasks: true } },
    extension: true,
  },
]);
