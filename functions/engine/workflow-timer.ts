import { task } from "../../shared/engine/task.js";
import { onTimer, type WorkflowTimerPayload } from "../../shared/services/workflows/timers.js";

/** The timer port's target: Scheduler (locally its stand-in) delivers the armed payload as the event. */
export const handler = task(async (payload: WorkflowTimerPayload) => {
  await onTimer(payload);
  return null;
});
