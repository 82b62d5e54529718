import type { LibraryIngestionFailure } from "../../shared/engine/library-ingestion-machine.js";
import { task } from "../../shared/engine/task.js";
import { recordIngestionFailure } from "../../shared/services/libraries/ingestion/failure.js";

export const handler = task((input: LibraryIngestionFailure) => recordIngestionFailure(input));
