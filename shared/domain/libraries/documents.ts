/**
 * Library documents (docs/libraries.md, "Documents"; decision 71). Pure: the record, how it is answered, listed and
 * where its objects live. A document belongs to its library's partition; its bytes and extracted text live under the
 * library's workspace prefix (the library's own workspace, whoever uploaded), as its vectors do.
 */
import type { Caller } from "../caller.js";
import { extensionOf } from "../file-rules.js";
import type { Attributes } from "../../schemas/vector-search.js";
import type { DocumentOut, ListDocumentsOut, ListDocumentsQuery, ProcessStatus } from "../../schemas/library-document.js";

export interface DocumentRecord {
  id: string;
  libraryId: string;
  organization: string;
  /** The library's workspace: its objects' prefix and its vector index's scope. */
  workspace: string;
  name: string;
  mimeType: string | null;
  extension: string | null;
  size: number;
  /** SHA-256 of the bytes, hex: the same bytes uploaded twice to a library are one document. */
  hash: string;
  createdAt: string;
  lastProcessedAt: string | null;
  numberOfPages: number | null;
  status: ProcessStatus;
  /** Why the last processing failed, for the user (no internals). */
  processError: string | null;
  /** Bumped by each reprocess: a run of an older generation stops without writing. */
  generation: number;
  /** Who uploaded (or last reprocessed): processing's model calls are counted in this workspace's usage. */
  uploadedById: string;
  uploadedByType: "User" | "ServiceAccount";
  uploadedFrom: string;
  chunks: number;
  tokensProcessed: number;
  embeddingModel: string | null;
  attributes: Attributes | null;
  expiresAt: string | null;
}

/** Where a document's objects are in the files bucket. */
export const documentKeys = (document: Pick<DocumentRecord, "workspace" | "libraryId" | "id">) => {
  const prefix = `workspaces/${document.workspace}/libraries/${document.libraryId}/documents/${document.id}`;
  return { original: `${prefix}/original`, text: `${prefix}/text.json` };
};

/** A document's extracted text as it is kept (and served by the extracted-text URL): its pages, from 0. */
export interface ExtractedText {
  document_id: string;
  pages: { index: number; text: string }[];
  ocr_model: string | null;
}

/** The extension of a document's name as `Document.extension` gives it: the files' rule, null when it has none. */
export const documentExtension = (name: string): string | null => extensionOf(name) || null;

export const uploaderType = (caller: Pick<Caller, "principalType">): DocumentRecord["uploadedByType"] => (caller.principalType === "service_account" ? "ServiceAccount" : "User");

export function toDocumentOut(document: DocumentRecord): DocumentOut {
  return {
    id: document.id,
    library_id: document.libraryId,
    hash: document.hash,
    mime_type: document.mimeType,
    extension: document.extension,
    size: document.size,
    name: document.name,
    summary: null,
    created_at: document.createdAt,
    last_processed_at: document.lastProcessedAt,
    number_of_pages: document.numberOfPages,
    process_status: document.status,
    process_error: document.processError,
    uploaded_by_id: document.uploadedById,
    uploaded_by_type: document.uploadedByType,
    tokens_processing_main_content: document.tokensProcessed,
    tokens_processing_summary: null,
    url: null,
    attributes: document.attributes,
    expires_at: document.expiresAt,
    processing_status: document.status,
    tokens_processing_total: document.tokensProcessed,
  };
}

const sortValue = (document: DocumentRecord, field: ListDocumentsQuery["sort_by"]): string | number => {
  switch (field) {
    case "name":
      return document.name.toLowerCase();
    case "size":
      return document.size;
    case "last_processed_at":
      return document.lastProcessedAt ?? "";
    default:
      return document.createdAt;
  }
};

/** One page of a library's documents: searched by name, sorted (ties by id), paged by number as Mistral pages them. */
export function documentPage(documents: readonly DocumentRecord[], query: ListDocumentsQuery): ListDocumentsOut {
  const search = query.search?.trim().toLowerCase();
  const direction = query.sort_order === "asc" ? 1 : -1;
  const found = documents
    .filter((d) => !search || d.name.toLowerCase().includes(search))
    .sort((a, b) => {
      const x = sortValue(a, query.sort_by);
      const y = sortValue(b, query.sort_by);
      return (x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : 1) * direction;
    });
  const start = query.page * query.page_size;
  const totalPages = Math.ceil(found.length / query.page_size);
  return {
    pagination: { total_items: found.length, total_pages: totalPages, current_page: query.page, page_size: query.page_size, has_more: start + query.page_size < found.length },
    data: found.slice(start, start + query.page_size).map(toDocumentOut),
  };
}

/** The text of pages [start, end) of an extracted text, pages joined by a blank line. */
export function pagesText(text: ExtractedText, start = 0, end?: number): string {
  return text.pages
    .filter((page) => page.index >= start && (end === undefined || page.index < end))
    .map((page) => page.text)
    .join("\n\n");
}
