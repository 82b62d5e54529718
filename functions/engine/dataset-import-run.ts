import type { DatasetImportInput } from "../../shared/engine/dataset-import-machine.js";
import { task } from "../../shared/engine/task.js";
import { runImport } from "../../shared/services/observability/dataset-import-engine.js";

export const handler = task((input: DatasetImportInput, context) => runImport(input, { timeLeftMs: context ? () => context.getRemainingTimeInMillis() : undefined }));
