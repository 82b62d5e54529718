import * as workers from "../../shared/services/workflows/workers.js";
import { TaskCompleteRequest, TaskDoneOut, TaskParams } from "../../shared/schemas/workers.js";
import { route } from "../route.js";

export const handler = route({ params: TaskParams, body: TaskCompleteRequest, response: TaskDoneOut }, async ({ params, body, caller }) =>
  workers.complete(caller, params.task_id, body),
);
