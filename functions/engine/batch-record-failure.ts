import { recordFailure } from "../../shared/domain/batch-engine.js";
import type { BatchFailure } from "../../shared/engine/batch-machine.js";
import { task } from "../../shared/engine/task.js";

export const handler = task((input: BatchFailure) => recordFailure(input));
