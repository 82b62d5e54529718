import { Reply } from "../../shared/http/reply.js";
import * as schedules from "../../shared/services/workflows/schedules.js";
import { ScheduleIdParams } from "../../shared/schemas/schedules.js";
import { route } from "../route.js";

export const handler = route({ params: ScheduleIdParams }, async ({ params, caller }) => {
  await schedules.remove(caller, params.schedule_id);
  return Reply.empty(204);
});
