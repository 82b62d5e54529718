/**
 * The library ingestion engine: the two tasks of shared/engine/library-ingestion-machine.ts (docs/libraries.md,
 * "Processing"; decision 71).
 *
 *   run            todo → in_progress; the document's text (text.ts), kept as its extracted text; its chunks, embedded
 *                  (vectors.ts) and written to the library's index in place of the document's old ones → done, or
 *                  missing_content (no text), or error (a document we cannot read, no embedding model), with why
 *   recordFailure  what run could not record itself (a fault, a timeout): error, with a message fit for the user
 *                  (failure.ts: its bundle carries no OCR or embeddings)
 *
 * Every write is conditional on the document's generation: a run overtaken by a reprocess or a delete stops without
 * writing, and a run whose document was deleted under it removes the vectors it wrote.
 */
import { createHash } from "node:crypto";
import { documentBlobs } from "../../../blobs/libraries.js";
import type { Caller } from "../../../domain/caller.js";
import { ApiError } from "../../../domain/errors.js";
import { documentKeys, type DocumentRecord } from "../../../domain/libraries/documents.js";
import { chunkPages, DEFAULT_CHUNK_SIZE } from "../../../domain/libraries/text/chunks.js";
import type { LibraryIngestionInput } from "../../../engine/library-ingestion-machine.js";
import { vectorStore } from "../../../engine/vectors/index.js";
import type { ProcessStatus } from "../../../schemas/library-document.js";
import { documentsStore, type Processed } from "../../../store/libraries/documents.js";
import { librariesStore } from "../../../store/libraries/index.js";
import type { CallContext } from "../../inference/usage.js";
import { documentText, DocumentUnreadable } from "./text.js";
import { chunkVectors, embeddingModel } from "./vectors.js";

const now = () => new Date().toISOString();

/** Who processing's model calls are made as: the uploader (or whoever reprocessed), in the workspace it uploaded from. */
function uploaderOf(document: DocumentRecord): Caller {
  return {
    organization: document.organization,
    workspace: document.uploadedFrom,
    principal: document.uploadedById,
    principalType: document.uploadedByType === "ServiceAccount" ? "service_account" : "user",
    roles: [],
    admin: false,
    keyId: "library-ingestion",
  };
}

/** One trace per processing of a document: its OCR and embedding calls are its spans. */
const ingestionTraceId = (input: LibraryIngestionInput) => createHash("sha256").update(`ingestion:${input.documentId}:${input.generation}`).digest("hex").slice(0, 32);

export async function runIngestion(input: LibraryIngestionInput): Promise<{ status: ProcessStatus } | null> {
  const [document, library] = await Promise.all([documentsStore.get(input.organization, input.libraryId, input.documentId), librariesStore.get(input.organization, input.libraryId)]);
  if (!document || !library || document.generation !== input.generation) return null;
  // The record as it starts (a rename or attributes set while it was queued included) is what the chunks carry.
  const started = await documentsStore.processed(document, input.generation, { status: "in_progress", processError: null });
  if (!started) return null;
  if (!library.indexed) await librariesStore.markIndexed(library.organization, library.id);
  const outcome = await ingest(started, library.chunkSize ?? DEFAULT_CHUNK_SIZE, input);
  const written = await documentsStore.processed(document, input.generation, { ...outcome, lastProcessedAt: now() });
  if (!written && !(await documentsStore.get(document.organization, document.libraryId, document.id))) {
    // Deleted while it was processed: the delete removed the vectors before this run wrote its own.
    await (await vectorStore()).deleteDocument(document.workspace, document.libraryId, document.id);
  }
  return written ? { status: outcome.status! } : null;
}

async function ingest(document: DocumentRecord, chunkSize: number, input: LibraryIngestionInput): Promise<Processed> {
  const ctx: CallContext = {
    caller: uploaderOf(document),
    requestId: `ingestion-${document.id}-${document.generation}`,
    route: "library ingestion",
    trace: { traceId: ingestionTraceId(input), parentSpanId: "", traceState: "" },
  };
  const keys = documentKeys(document);
  try {
    const text = await documentText(ctx, await documentBlobs.bytes(keys.original), document.name);
    await documentBlobs.putText(keys.text, { document_id: document.id, pages: text.pages.map((page, index) => ({ index, text: page })), ocr_model: text.ocrModel ?? null });
    const store = await vectorStore();
    await store.deleteDocument(document.workspace, document.libraryId, document.id);
    const chunks = chunkPages(text.pages, chunkSize);
    const counted = { numberOfPages: text.pages.length, chunks: chunks.length };
    if (!chunks.length) return { status: "missing_content", processError: "The document has no text to index", ...counted, tokensProcessed: 0 };
    const model = await embeddingModel(ctx);
    const { vectors, tokens } = await chunkVectors(ctx, model, chunks);
    const createdAt = Math.floor(Date.parse(document.createdAt) / 1000);
    await store.upsert(
      document.workspace,
      document.libraryId,
      chunks.map((chunk, i) => ({
        documentId: document.id,
        chunkIndex: chunk.index,
        text: chunk.text,
        documentName: document.name,
        mimeType: document.mimeType,
        createdAt,
        attributes: document.attributes ?? undefined,
        vector: vectors[i]!,
      })),
    );
    return { status: "done", processError: null, ...counted, tokensProcessed: tokens, embeddingModel: model };
  } catch (error) {
    // What the user can act on (a file we cannot read, no embedding model, a chunk an index refuses) is the
    // document's error; a fault goes to the machine's retry and RecordFailure.
    if (error instanceof DocumentUnreadable || (error instanceof ApiError && error.status < 500)) return { status: "error", processError: error.message };
    throw error;
  }
}
