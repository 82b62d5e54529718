import type { DatasetImportFailure } from "../../shared/engine/dataset-import-machine.js";
import { task } from "../../shared/engine/task.js";
import { recordImportFailure } from "../../shared/services/observability/dataset-import-engine.js";

export const handler = task((input: DatasetImportFailure) => recordImportFailure(input));
