import * as workers from "../../shared/services/workflows/workers.js";
import { PollOut, PollRequest } from "../../shared/schemas/workers.js";
import { route } from "../route.js";

/** Answers with a claimed task as soon as there is one, or `{task: null}` once `wait_seconds` are over. */
export const handler = route({ body: PollRequest, response: PollOut }, async ({ body, caller, signal }) => ({ task: await workers.poll(caller, body, signal) }));
