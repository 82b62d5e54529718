import { task } from "../../shared/engine/task.js";
import { sweep } from "../../shared/services/workflows/schedules.js";

/** Every minute: schedules whose armed fire is well past (a lost timer, a failed arm) are armed again, now. */
export const handler = task(async () => sweep());
