import { recordFailure } from "../../shared/services/batch/engine/index.js";
import type { BatchFailure } from "../../shared/engine/batch-machine.js";
import { task } from "../../shared/engine/task.js";

export const handler = task((input: BatchFailure) => recordFailure(input));
