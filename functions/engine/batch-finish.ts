import { finish } from "../../shared/services/batch/engine/index.js";
import type { BatchStarted } from "../../shared/engine/batch-machine.js";
import { task } from "../../shared/engine/task.js";

export const handler = task((input: BatchStarted) => finish(input));
