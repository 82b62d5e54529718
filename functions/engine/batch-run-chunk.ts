import { runChunk } from "../../shared/services/batch/engine/index.js";
import type { BatchChunkTask } from "../../shared/engine/batch-machine.js";
import { task } from "../../shared/engine/task.js";

export const handler = task((input: BatchChunkTask, context) => runChunk(input, { timeLeftMs: context ? () => context.getRemainingTimeInMillis() : undefined }));
