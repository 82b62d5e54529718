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
const traced: Grants = { tables: { workflows: "read", executions: "readwrite", telemetry: "read" } };
/** Trace info and OTel read the run and the spans kept in its trace (the telemetry table's point store). */
const spanReads: Grants = { tables: { workflows: "read", executions: "read", telemetry: "read" } };

export const workflowRoutes = area({ errors: "workflow", permissions: { read: "workflows:read", write: "workflows:execute" } }, [
  { method: "GET", path: "/v1/workflows", handler: "workflows/list", grants: { tables: { workflows: "read" } } },
  { method: "GET", path: "/v1/workflows/registrations", handler: "workflows/list-registrations", grants: { tables: { workflows: "read" } } },
  // Extension (issue 29, the SDK's getWorkflowRegistration): one registration, with its deployment's liveness.
  { method: "GET", path: "/v1/workflows/registrations/{workflow_registration_id}", handler: "workflows/get-registration", grants: { tables: { workflows: "read" } }, extension: true },
  { method: "POST", path: "/v1/workflows/{workflow_identifier}/execute", handler: "workflows/execute", grants: stops },
  { method: "POST", path: "/v1/workflows/registrations/{workflow_registration_id}/execute", handler: "workflows/execute-registration", grants: stops },
  { method: "GET", path: "/v1/workflows/{workflow_identifier}", handler: "workflows/retrieve", grants: { tables: { workflows: "read" } } },
  { method: "PUT", path: "/v1/workflows/{workflow_identifier}", handler: "workflows/update", grants: { tables: { workflows: "readwrite" } }, permission: "workflows:write" },
  // Extensions (issue 29, the SDK's archive calls; decision 63): the literal `archive`/`unarchive` outrank `{workflow_identifier}`.
  { method: "PUT", path: "/v1/workflows/{workflow_identifier}/archive", handler: "workflows/archive", grants: { tables: { workflows: "readwrite" } }, permission: "workflows:write", extension: true, audit: "workflow.archive" },
  { method: "PUT", path: "/v1/workflows/{workflow_identifier}/unarchive", handler: "workflows/unarchive", grants: { tables: { workflows: "readwrite" } }, permission: "workflows:write", extension: true, audit: "workflow.unarchive" },
  { method: "PUT", path: "/v1/workflows/archive", handler: "workflows/bulk-archive", grants: { tables: { workflows: "readwrite" } }, permission: "workflows:write", extension: true, audit: "workflow.archive" },
  { method: "PUT", path: "/v1/workflows/unarchive", handler: "workflows/bulk-unarchive", grants: { tables: { workflows: "readwrite" } }, permission: "workflows:write", extension: true, audit: "workflow.unarchive" },
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
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/trace/info", handler: "workflows/trace-info", grants: spanReads },
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/trace/otel", handler: "workflows/trace-otel", grants: spanReads },
  { method: "GET", path: "/v1/workflows/runs", handler: "workflows/list-runs", grants: reads },
  { method: "GET", path: "/v1/workflows/runs/{run_id}/history", handler: "workflows/run-history", grants: histories },
  { method: "GET", path: "/v1/workflows/runs/{run_id}", handler: "workflows/get-run", grants: reads },
  { method: "GET", path: "/v1/workflows/events/list", handler: "workflows/list-events", grants: reads },
  // Server-sent events for up to 14 minutes: API Gateway's STREAM mode, Lambda response streaming.
  { method: "GET", path: "/v1/workflows/events/stream", handler: "workflows/stream-events", grants: reads, streaming: true },
  // Extensions (issue 29, the SDK's executions.stream): one execution's events, as the events stream sends them.
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/stream", handler: "workflows/stream-execution", grants: reads, streaming: true, extension: true },
  // Built from the history (which caches closed runs') and the spans kept in the run's trace.
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/trace/summary", handler: "workflows/trace-summary", grants: traced, extension: true },
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/trace/events", handler: "workflows/trace-events", grants: traced, extension: true },
  // The execution's log lines (decision 0064), listed and streamed like its events.
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/logs", handler: "workflows/execution-logs", grants: reads, extension: true },
  { method: "GET", path: "/v1/workflows/executions/{execution_id}/logs/stream", handler: "workflows/execution-logs-stream", grants: reads, streaming: true, extension: true },
]);
