import * as schedules from "../../shared/services/workflows/schedules.js";
import { ScheduleIdParams, ScheduleOut } from "../../shared/schemas/schedules.js";
import { route } from "../route.js";

/** The definition with the next 10 fires (`future_executions`) and the last 10 started (`recent_executions`). */
export const handler = route({ params: ScheduleIdParams, response: ScheduleOut }, async ({ params, caller }) => schedules.get(caller, params.schedule_id));
