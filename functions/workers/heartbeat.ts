import * as workers from "../../shared/services/workflows/workers.js";
import { TaskHeartbeatOut, TaskHeartbeatRequest, TaskParams } from "../../shared/schemas/workers.js";
import { route } from "../route.js";

export const handler = route({ params: TaskParams, body: TaskHeartbeatRequest, response: TaskHeartbeatOut }, async ({ params, body, caller }) =>
  workers.heartbeat(caller, params.task_id, body),
);
