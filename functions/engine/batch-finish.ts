import { finish } from "../../shared/domain/batch-engine.js";
import type { BatchStarted } from "../../shared/engine/batch-machine.js";
import { task } from "../../shared/engine/task.js";

export const handler = task((input: BatchStarted) => finish(input));
