import { Reply } from "../../shared/http/reply.js";
import * as schedules from "../../shared/services/workflows/schedules.js";
import { ScheduleIdParams, ScheduleTriggerRequest } from "../../shared/schemas/schedules.js";
import { route } from "../route.js";

/** One fire now under the schedule's overlap policy, or the body's `overlap`. */
export const handler = route({ params: ScheduleIdParams, optionalBody: true, body: ScheduleTriggerRequest }, async ({ params, body, caller }) => {
  await schedules.trigger(caller, params.schedule_id, body?.overlap);
  return Reply.empty(204);
});
