/**
 * Names a workflow cannot take (decision 63): each is a literal segment beside `/v1/workflows/{workflow_identifier}`
 * in the route table, and a literal outranks a parameter in API Gateway's resource tree, so a workflow of that name
 * could not be read, updated, archived or executed by name (`PUT /v1/workflows/archive` is the bulk archive,
 * `GET /v1/workflows/executions/...` an execution). test/unit/domain/workflows/reserved-names.test.ts keeps the list
 * equal to the route table's segments.
 */
export const RESERVED_WORKFLOW_NAMES: ReadonlySet<string> = new Set([
  "archive",
  "deployments",
  "events",
  "executions",
  "register",
  "registrations",
  "runs",
  "schedules",
  "tasks",
  "unarchive",
  "workers",
]);
