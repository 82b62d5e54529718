import { task } from "../../shared/engine/task.js";
import type { ScheduleFirePayload } from "../../shared/services/workflows/schedule-timers.js";
import { fire } from "../../shared/services/workflows/schedules.js";

/**
 * The schedules' timer target: Scheduler (locally its stand-in) delivers `{kind: "schedule-fire", workspace,
 * scheduleId}` at the armed time; the record says what is due (a late or repeated delivery does nothing twice).
 */
export const handler = task(async (payload: ScheduleFirePayload) => {
  const outcome = await fire(payload.workspace, payload.scheduleId);
  return { started: outcome.started.length, buffered: outcome.buffered.length, skipped: outcome.skipped.length };
});
