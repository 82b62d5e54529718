import type { LibraryIngestionInput } from "../../shared/engine/library-ingestion-machine.js";
import { task } from "../../shared/engine/task.js";
import { runIngestion } from "../../shared/services/libraries/ingestion/run.js";

export const handler = task((input: LibraryIngestionInput) => runIngestion(input));
