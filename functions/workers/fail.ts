import * as workers from "../../shared/services/workflows/workers.js";
import { TaskDoneOut, TaskFailRequest, TaskParams } from "../../shared/schemas/workers.js";
import { route } from "../route.js";

export const handler = route({ params: TaskParams, body: TaskFailRequest, response: TaskDoneOut }, async ({ params, body, caller }) =>
  workers.fail(caller, params.task_id, body),
);
