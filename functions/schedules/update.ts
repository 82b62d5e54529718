import * as schedules from "../../shared/services/workflows/schedules.js";
import { ScheduleIdOut, ScheduleIdParams, ScheduleUpdateRequest } from "../../shared/schemas/schedules.js";
import { route } from "../route.js";

/** Only the supplied fields change; the next fire is recomputed and re-armed. */
export const handler = route({ params: ScheduleIdParams, body: ScheduleUpdateRequest, response: ScheduleIdOut }, async ({ params, body, caller }) =>
  schedules.update(caller, params.schedule_id, body),
);
