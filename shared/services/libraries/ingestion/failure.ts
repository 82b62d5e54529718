/** The library ingestion machine's RecordFailure task (shared/engine/library-ingestion-machine.ts, run.ts). */
import type { LibraryIngestionFailure } from "../../../engine/library-ingestion-machine.js";
import { documentsStore } from "../../../store/libraries/documents.js";

/** RecordFailure: what Step Functions caught, said without internals. */
export async function recordIngestionFailure(input: LibraryIngestionFailure): Promise<void> {
  const timedOut = /Timeout|Timedout/i.test(input.failure.Error ?? "");
  const processError = timedOut
    ? "Processing took longer than its time limit; split the document or reprocess it"
    : "An internal error stopped processing; reprocess the document to try again";
  const document = { organization: input.organization, libraryId: input.libraryId, id: input.documentId };
  await documentsStore.processed(document, input.generation, { status: "error", processError, lastProcessedAt: new Date().toISOString() });
}
