import { TaskParams } from "../../shared/schemas/workers.js";
import { TaskLogsOut, TaskLogsRequest } from "../../shared/schemas/workflow-streams.js";
import * as logs from "../../shared/services/workflows/logs.js";
import { route } from "../route.js";

/** A worker's activity log lines (its `console` output), kept with the execution and the deployment. */
export const handler = route({ params: TaskParams, body: TaskLogsRequest, response: TaskLogsOut }, async ({ params, body, caller }) => logs.reportTaskLogs(caller, params.task_id, body));
