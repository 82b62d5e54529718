import * as workers from "../../shared/services/workflows/workers.js";
import { PollOut, PollRequest } from "../../shared/schemas/workers.js";
import { route } from "../route.js";

/**
 * Answers with a claimed task as soon as there is one, or `{task: null}` once `wait_seconds` are over; and
 * whether the worker was asked to restart (POST /v1/workflows/deployments/{name}/restart).
 */
export const handler = route({ body: PollRequest, response: PollOut }, async ({ body, caller, signal }) => ({
  task: await workers.poll(caller, body, signal),
  restart_requested: await workers.restartRequested(caller, body.deployment_name, body.worker_name),
}));
