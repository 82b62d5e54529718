import { area, type Grants } from "../route-row.js";

/**
 * Workflows, their executions, runs and events (docs/workflows.md). Errors are the workflow family's
 * (`{detail, code: "WF_xxxx"}`); reads need workflows:read, starting and stopping workflows:execute.
 * Rows that start or stop runs also hold workflow engine rights: runs (start, describe, stop) and timers
 * (the execution timeout, a cancel's grace period).
 */
const reads: Grants = { tables: { workflows: "read", executions: "read" } };
const stops: Grants = { tables: { workflows: "read", executions: "readwrite" }, workflows: { runs: "start-stop", timers: "arm" } };
/** Signals and updates complete the token of a Task waiting on the inbox; histories cache closed runs'. */
const delivers: Grants = { tables: { workflows: "read", executions: "readwrite" }, workflows: { tasks: true } };
const histories: Grants = { tables: { workflows: "read", executions: "readwrite" } };

export const workflowRoutes = area({ errors: "workflow", permissions: { read: "workflows:read", write: "workflows:execute" } }, [
  { method: "GET", path: "/v1/workflows", handler: "workflows/list", grants: { tables: { workflows: "read" } } },
  { method: "GET", path: "/v1/workflows/registrations", handler: "workflows/list-registrations", grants: { tables: { workflows: "read" } } },
  { method: "POST", path: "/v1/workflows/{workflow_identifier}/execute", handler: "workflows/execute", grants: stops },
  { method: "POST", path: "/v1/workflows/registrations/{workflow_registration_id}/execute", handler: "workflows/execute-registration", grants: stops },
  { method: "GET", path: "/v1/workflows/{workflow_identifier}", handler: "workflows/retrieve", grants: { tables: { workflows: "read" } } },
  { method: "PUT", path: "/v1/workflows/{workflow_identifier}", handler: "workflows/update", grants: { tables: { workflows: "readwrite" } }, permission: "workflows:write" },
  { method: "GET", path: "/v1/workflows/{workflow_name}/metrics", handler: "workflows/metrics", grants: reads },
  { method: "GET", path: "/v1/workflows/executions/{execution_id}", handler: "workflows/get-execution", grants: reads },
  { method: "POST", path: "/v1/workflows/executions/{execution_id}/terminate", handler: "workflows/terminate", doc: { status: 204 }, grants: stops },
  { method: "POST", path: "/v1/workflows/executions/{execution_id}/cancel", handler: "workflows/cancel", doc: { status: 204 }, grants: stops },
  { method: "POST", path: "/v1/workflows/executions/terminate", handler: "workflows/batch-terminate", grants: stops },
  { method: "POST", path: "/v1/workflows/executions/cancel", handler: "workflows/batch-cancel", grants: stops },
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/history", handler: "workflows/execution-history", grants: histories },
  { method: "POST", path: "/v1/workflows/executions/{execution_id}/signals", handler: "workflows/signal", doc: { status: 202 }, grants: delivers },
  // A query reads published state: what a read-only key may do.
  { method: "POST", path: "/v1/workflows/executions/{execution_id}/queries", handler: "workflows/query", grants: reads, permission: "workflows:read" },
  // Waits up to 25 s for the program's answer: within API Gateway's 29 s.
  { method: "POST", path: "/v1/workflows/executions/{execution_id}/updates", handler: "workflows/update-execution", grants: delivers },
  { method: "POST", path: "/v1/workflows/executions/{execution_id}/reset", handler: "workflows/reset", doc: { status: 204 }, grants: stops },
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/trace/info", handler: "workflows/trace-info", grants: reads },
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/trace/otel", handler: "workflows/trace-otel", grants: reads },
  { method: "GET", path: "/v1/workflows/runs", handler: "workflows/list-runs", grants: reads },
  { method: "GET", path: "/v1/workflows/runs/{run_id}/history", handler: "workflows/run-history", grants: histories },
  { method: "GET", path: "/v1/workflows/runs/{run_id}", handler: "workflows/get-run", grants: reads },
  { method: "GET", path: "/v1/workflows/events/list", handler: "workflows/list-events", grants: reads },
  // Server-sent events for up to 14 minutes: API Gateway's STREAM mode, Lambda response streaming.
  { method: "GET", path: "/v1/workflows/events/stream", handler: "workflows/stream-events", grants: reads, streaming: true },
]);
