import { start } from "../../shared/services/batch/engine/index.js";
import type { BatchExecutionInput } from "../../shared/engine/batch-machine.js";
import { task } from "../../shared/engine/task.js";

export const handler = task((input: BatchExecutionInput) => start(input));
