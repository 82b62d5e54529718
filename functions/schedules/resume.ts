import { Reply } from "../../shared/http/reply.js";
import * as schedules from "../../shared/services/workflows/schedules.js";
import { ScheduleIdParams, ScheduleNoteRequest } from "../../shared/schemas/schedules.js";
import { route } from "../route.js";

export const handler = route({ params: ScheduleIdParams, optionalBody: true, body: ScheduleNoteRequest }, async ({ params, body, caller }) => {
  await schedules.resume(caller, params.schedule_id, body?.note);
  return Reply.empty(204);
});
