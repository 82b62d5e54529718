import * as schedules from "../../shared/services/workflows/schedules.js";
import { ScheduleListOut, ScheduleListQuery } from "../../shared/schemas/schedules.js";
import { route } from "../route.js";

export const handler = route({ query: ScheduleListQuery, response: ScheduleListOut }, async ({ query, caller }) => schedules.list(caller, query));
