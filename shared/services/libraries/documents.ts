/**
 * Library documents (beta): upload, list, get, update, delete, status, text, signed URLs, reprocess (docs/libraries.md,
 * "Documents"; decision 71). Reading takes Viewer on the library, changing Editor. An upload is stored, recorded with
 * the library's counters, and queued: the ingestion machine (ingestion/run.ts) makes it searchable.
 */
import { createHash, randomUUID } from "node:crypto";
import { fileBlobs } from "../../blobs/files.js";
import { documentBlobs } from "../../blobs/libraries.js";
import type { Caller } from "../../domain/caller.js";
import type { LibraryRecord } from "../../domain/libraries/access.js";
import { ApiError, Conflict, PayloadTooLarge, Unprocessable } from "../../domain/errors.js";
import { documentKeys, documentExtension, documentPage, pagesText, toDocumentOut, uploaderType, type DocumentRecord } from "../../domain/libraries/documents.js";
import { documentFormat, SUPPORTED_FORMATS, type FormatFacts } from "../../domain/libraries/text/formats.js";
import { StreamedFormat } from "../../domain/libraries/text/streamed-format.js";
import { startExecution } from "../../engine/executions.js";
import { ingestionExecutionName, type LibraryIngestionInput } from "../../engine/library-ingestion-machine.js";
import { MAX_DOCUMENT_BYTES, type DocumentOut, type DocumentTextOut, type DocumentTextQuery, type DocumentUploadForm, type ListDocumentsOut, type ListDocumentsQuery, type ProcessingStatusOut, type UpdateDocumentRequest } from "../../schemas/library-document.js";
import { logger } from "../../observability/logger.js";
import { documentsStore } from "../../store/libraries/documents.js";
import { INLINE_UPLOAD_MAX_BYTES } from "../files/files.js";
import { forgetDocument } from "./cleanup.js";
import { LibraryNotFound, reach } from "./libraries.js";

export class DocumentNotFound extends ApiError {
  constructor(id: string) {
    super(404, "not_found_error", `No document with id '${id}' exists in this library`, "document_not_found");
  }
}

const now = () => new Date().toISOString();
const fileError = (msg: string) => new Unprocessable([{ loc: ["body", "file"], msg, type: "value_error" }]);

async function found(caller: Caller, libraryId: string, documentId: string, action: "read" | "edit"): Promise<DocumentRecord> {
  const { library } = await reach(caller, libraryId, action);
  const document = await documentsStore.get(library.organization, library.id, documentId.toLowerCase());
  if (!document) throw new DocumentNotFound(documentId);
  return document;
}

/** Starts a document's processing at its generation. */
async function queue(document: DocumentRecord): Promise<void> {
  const input: LibraryIngestionInput = { organization: document.organization, libraryId: document.libraryId, documentId: document.id, generation: document.generation };
  await startExecution("libraryIngestion", ingestionExecutionName(input), input);
}

export const documentTooLarge = (limit: number = MAX_DOCUMENT_BYTES) =>
  new PayloadTooLarge(`The document is larger than the limit of ${limit} bytes (${Math.round(limit / (1024 * 1024))} MiB)`, "document_too_large");

/** What the Lambda route says of a document past what it carries: the distribution's URL streams it (decision 0033). */
export const inlineDocumentTooLarge = (bytes?: number) =>
  new PayloadTooLarge(
    `${bytes ? `The document is ${bytes} bytes, more` : "The request is larger"} than this route takes inline (${INLINE_UPLOAD_MAX_BYTES} bytes). ` +
      `Upload larger documents (up to ${MAX_DOCUMENT_BYTES / (1024 * 1024)} MiB) through the deployment's URL (its CloudFront distribution, the DistributionUrl output), which streams them.`,
    "use_large_upload",
  );

/** The facts of a document's bytes that its record keeps, however they arrived. */
interface UploadedBytes {
  filename: string;
  size: number;
  hash: string;
  facts: FormatFacts;
}

/** The library a document is uploaded to and the document's id and object key, settled before a byte is read. */
export interface UploadTarget {
  library: LibraryRecord;
  documentId: string;
  objectKey: string;
}

/** A streamed upload whose bytes are stored under its target's object key, judged, but not recorded yet. */
export interface StagedDocument {
  target: UploadTarget;
  filename: string;
  size: number;
  hash: string;
  /** The format, or undefined when it is none we read (refused by uploadStaged). */
  facts: FormatFacts | undefined;
}

/** Checks the caller may add documents to the library (Editor) and names the new document and its object. */
export async function uploadTarget(caller: Caller, libraryId: string): Promise<UploadTarget> {
  const { library } = await reach(caller, libraryId, "edit");
  const documentId = randomUUID();
  return { library, documentId, objectKey: documentKeys({ workspace: library.workspace, libraryId: library.id, id: documentId }).original };
}

/** The bytes' checks shared by both servers: not empty, a format we read. */
function checked(size: number, facts: FormatFacts | undefined): FormatFacts {
  if (!size) throw fileError("The file is empty");
  if (!facts) throw fileError(`The file is not a document we can read; upload ${SUPPORTED_FORMATS}`);
  return facts;
}

/** The bytes of one uploaded file as a new document of the library, or the library's document of the same bytes (the Lambda route, to 4 MiB). */
export async function upload(caller: Caller, libraryId: string, form: DocumentUploadForm): Promise<{ created: boolean; document: DocumentOut }> {
  const target = await uploadTarget(caller, libraryId);
  const { filename, content } = form.file;
  if (form.file.truncated || content.length > INLINE_UPLOAD_MAX_BYTES) throw inlineDocumentTooLarge(content.length);
  const facts = checked(content.length, documentFormat(content, filename));
  await documentBlobs.put(target.objectKey, content, facts.mimeType);
  return recordDocument(caller, target, { filename, size: content.length, hash: createHash("sha256").update(content).digest("hex"), facts });
}

/**
 * Streams a file part to the target's object (the upload service), hashing, counting and judging its format as the
 * bytes pass (shared/domain/libraries/text/streamed-format.ts; a ZIP is read back whole to find its entries). Past
 * `maxBytes` it stops with a 413; on any failure nothing is left.
 */
export async function stageDocument(target: UploadTarget, file: { filename: string; content: AsyncIterable<Uint8Array> }, maxBytes: number = MAX_DOCUMENT_BYTES): Promise<StagedDocument> {
  const hash = createHash("sha256");
  const format = new StreamedFormat();
  // The type is known once the bytes are: the record keeps it, and every URL to the object names it itself.
  const object = fileBlobs.writer(target.objectKey, null);
  let size = 0;
  try {
    for await (const chunk of file.content) {
      size += chunk.length;
      if (size > maxBytes) throw documentTooLarge(maxBytes);
      hash.update(chunk);
      format.push(chunk);
      await object.write(chunk);
    }
    await object.finish();
  } catch (error) {
    await object.abort().catch((abortError: unknown) => logger.warn("could not abort a streamed document", { objectKey: target.objectKey, error: abortError as Error }));
    throw error;
  }
  const staged = { target, filename: file.filename, size, hash: hash.digest("hex") };
  try {
    return { ...staged, facts: await format.result(file.filename, () => documentBlobs.bytes(target.objectKey)) };
  } catch (error) {
    await discardStaged(staged);
    throw error;
  }
}

/** A staged document that will not become one (a refused form, a client that went away). */
export async function discardStaged(staged: Pick<StagedDocument, "target">): Promise<void> {
  await documentBlobs.remove([staged.target.objectKey]);
}

/**
 * The upload service's end of an upload: the same checks and record as `upload`, for bytes already stored under the
 * target's key. A refusal removes them; a document of the same bytes already in the library answers that one.
 */
export async function uploadStaged(caller: Caller, staged: StagedDocument, filename: string = staged.filename): Promise<{ created: boolean; document: DocumentOut }> {
  let facts: FormatFacts;
  try {
    facts = checked(staged.size, staged.facts);
  } catch (error) {
    await discardStaged(staged);
    throw error;
  }
  return recordDocument(caller, staged.target, { filename, size: staged.size, hash: staged.hash, facts });
}

/** The record (with the library's counters) and the queued processing of bytes stored under the target's key. */
async function recordDocument(caller: Caller, target: UploadTarget, bytes: UploadedBytes): Promise<{ created: boolean; document: DocumentOut }> {
  const { library } = target;
  const at = now();
  const document: DocumentRecord = {
    id: target.documentId,
    libraryId: library.id,
    organization: library.organization,
    workspace: library.workspace,
    name: bytes.filename,
    mimeType: bytes.facts.mimeType,
    extension: documentExtension(bytes.filename),
    size: bytes.size,
    hash: bytes.hash,
    createdAt: at,
    lastProcessedAt: null,
    numberOfPages: null,
    status: "todo",
    processError: null,
    generation: 1,
    uploadedById: caller.principal,
    uploadedByType: uploaderType(caller),
    uploadedFrom: caller.workspace,
    chunks: 0,
    tokensProcessed: 0,
    embeddingModel: null,
    attributes: null,
    expiresAt: null,
  };
  const keys = documentKeys(document);
  let added: Awaited<ReturnType<typeof documentsStore.add>>;
  try {
    added = await documentsStore.add(document);
  } catch (error) {
    await documentBlobs.remove([keys.original]);
    throw error;
  }
  if (added !== "added") {
    await documentBlobs.remove([keys.original]);
    if (added === "no-library") throw new LibraryNotFound(library.id);
    const existing = await documentsStore.get(library.organization, library.id, added.existing);
    if (!existing) throw new Conflict("A document of the same bytes is being deleted from this library; upload it again", "document_conflict");
    return { created: false, document: toDocumentOut(existing) };
  }
  try {
    await queue(document);
  } catch (error) {
    // Not queued, not kept: the upload fails whole (and the caller hears why it failed, not how the cleanup went).
    await documentsStore
      .remove(document)
      .then(() => documentBlobs.remove([keys.original]))
      .catch((cleanup: unknown) => logger.error("could not remove a document whose processing did not start", { documentId: document.id, error: cleanup as Error }));
    throw error;
  }
  return { created: true, document: toDocumentOut(document) };
}

export async function list(caller: Caller, libraryId: string, query: ListDocumentsQuery): Promise<ListDocumentsOut> {
  const { library } = await reach(caller, libraryId, "read");
  return documentPage(await documentsStore.all(library.organization, library.id), query);
}

export async function get(caller: Caller, libraryId: string, documentId: string): Promise<DocumentOut> {
  return toDocumentOut(await found(caller, libraryId, documentId, "read"));
}

export async function status(caller: Caller, libraryId: string, documentId: string): Promise<ProcessingStatusOut> {
  const document = await found(caller, libraryId, documentId, "read");
  return { document_id: document.id, process_status: document.status, process_error: document.processError, processing_status: document.status };
}

/**
 * Changes the name and attributes. Both are in every chunk's metadata (the search's filters and answers read them),
 * so a processed document whose name or attributes change is processed again (decision 71).
 */
export async function update(caller: Caller, libraryId: string, documentId: string, body: UpdateDocumentRequest): Promise<DocumentOut> {
  const document = await found(caller, libraryId, documentId, "edit");
  const fields = { name: body.name, attributes: body.attributes };
  const changed = (fields.name !== undefined && fields.name !== document.name) || (fields.attributes !== undefined && JSON.stringify(fields.attributes) !== JSON.stringify(document.attributes));
  if (!changed) return toDocumentOut(document);
  const updated = await documentsStore.update(document, fields);
  if (!updated) throw new DocumentNotFound(documentId);
  // A queued run reads the record when it starts; one under way has read it already and is overtaken.
  if (updated.status === "todo") return toDocumentOut(updated);
  return toDocumentOut(await requeue(caller, updated));
}

async function requeue(caller: Caller, document: DocumentRecord): Promise<DocumentRecord> {
  const queued = await documentsStore.requeue(document, { uploadedById: caller.principal, uploadedByType: uploaderType(caller), uploadedFrom: caller.workspace });
  if (!queued) throw new Conflict("The document changed while it was being queued; try again", "document_conflict");
  try {
    await queue(queued);
  } catch (error) {
    await documentsStore.processed(queued, queued.generation, { status: "error", processError: "Processing could not be queued; reprocess the document" });
    throw error;
  }
  return queued;
}

/** Processes the document again (its model calls billed again), as the caller. */
export async function reprocess(caller: Caller, libraryId: string, documentId: string): Promise<void> {
  await requeue(caller, await found(caller, libraryId, documentId, "edit"));
}

/**
 * Removes the record and the library's counters first (gone for every reader at once), then the objects and the
 * vectors. A run still processing it finds it gone and removes what it wrote.
 */
export async function remove(caller: Caller, libraryId: string, documentId: string): Promise<void> {
  const document = await found(caller, libraryId, documentId, "edit");
  if (!(await documentsStore.remove(document))) throw new DocumentNotFound(documentId);
  await forgetDocument(document);
}

const processedText = async (document: DocumentRecord) => {
  const text = document.status === "done" || document.status === "missing_content" ? await documentBlobs.text(documentKeys(document).text) : undefined;
  if (!text) throw new Conflict(`The document has no extracted text: its processing is ${document.status}`, "document_not_processed");
  return text;
};

export async function textContent(caller: Caller, libraryId: string, documentId: string, query: DocumentTextQuery): Promise<DocumentTextOut> {
  const text = await processedText(await found(caller, libraryId, documentId, "read"));
  return { text: pagesText(text, query.page_start ?? 0, query.page_end) };
}

/** A URL to the uploaded bytes, valid 30 minutes (DOCUMENT_URL_SECONDS). */
export async function signedUrl(caller: Caller, libraryId: string, documentId: string): Promise<string> {
  const document = await found(caller, libraryId, documentId, "read");
  return documentBlobs.url(documentKeys(document).original, document.name, document.mimeType ?? "application/octet-stream");
}

/** A URL to the extracted text (its pages as JSON), valid 30 minutes. */
export async function extractedTextSignedUrl(caller: Caller, libraryId: string, documentId: string): Promise<string> {
  const document = await found(caller, libraryId, documentId, "read");
  await processedText(document);
  return documentBlobs.url(documentKeys(document).text, `${document.name}.json`, "application/json");
}
