import { area, type Grants } from "../route-row.js";

/**
 * Workflow schedules (docs/workflows.md, "Schedules"; decision 0022): records in the executions table, fires
 * armed on EventBridge Scheduler (the `schedules` right: their own group). Reads need workflows:read, changes
 * workflows:write, trigger (it starts an execution now) workflows:execute. Errors are the workflow family's.
 */
const reads: Grants = { tables: { executions: "read" } };
/** Create, update, resume: the workflow and its registrations are read, the next fire armed. */
const arms: Grants = { tables: { workflows: "read", executions: "readwrite" }, workflows: { schedules: "arm" } };
const disarms: Grants = { tables: { executions: "readwrite" }, workflows: { schedules: "disarm" } };
/** Trigger starts (and under cancel/terminate-other stops) executions, as execute and terminate do. */
const fires: Grants = { tables: { workflows: "read", executions: "readwrite" }, workflows: { runs: "start-stop", timers: "arm", schedules: "arm" } };

export const scheduleRoutes = area({ errors: "workflow", permissions: { read: "workflows:read", write: "workflows:write" } }, [
  { method: "GET", path: "/v1/workflows/schedules", handler: "schedules/list", grants: reads },
  { method: "POST", path: "/v1/workflows/schedules", handler: "schedules/create", doc: { status: 201 }, grants: arms },
  { method: "GET", path: "/v1/workflows/schedules/{schedule_id}", handler: "schedules/get", grants: reads },
  { method: "DELETE", path: "/v1/workflows/schedules/{schedule_id}", handler: "schedules/delete", doc: { status: 204 }, grants: disarms },
  { method: "PATCH", path: "/v1/workflows/schedules/{schedule_id}", handler: "schedules/update", grants: arms },
  { method: "POST", path: "/v1/workflows/schedules/{schedule_id}/pause", handler: "schedules/pause", doc: { status: 204 }, grants: disarms },
  { method: "POST", path: "/v1/workflows/schedules/{schedule_id}/resume", handler: "schedules/resume", doc: { status: 204 }, grants: arms },
  { method: "POST", path: "/v1/workflows/schedules/{schedule_id}/trigger", handler: "schedules/trigger", doc: { status: 204 }, grants: fires, permission: "workflows:execute" },
]);
