import { Reply } from "../../shared/http/reply.js";
import * as schedules from "../../shared/services/workflows/schedules.js";
import { ScheduleCreateRequest } from "../../shared/schemas/schedules.js";
import { route } from "../route.js";

/** 201 `{schedule_id}`; the first fire is armed. */
export const handler = route({ body: ScheduleCreateRequest }, async ({ body, caller }) => Reply.json(201, await schedules.create(caller, body)));
