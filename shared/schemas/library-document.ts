import * as z from "zod";
import { Uuid } from "./common.js";
import { queryInt } from "./query.js";
import { Attributes } from "./vector-search.js";

/**
 * Library documents as Mistral's OpenAPI writes them (`Document`, `ListDocumentsResponse`, `UpdateDocumentRequest`,
 * `DocumentTextContent`, `ProcessingStatus`) and as the SDK parses them: every field its `Document` requires is
 * always present (docs/libraries.md, "Documents").
 */

/** Mistral's `ProcessStatus`: the ones this deployment moves a document through, and the rest it never sets. */
export const PROCESS_STATUSES = ["todo", "in_progress", "done", "missing_content", "error", "noop", "self_managed", "waiting_for_capacity"] as const;
export type ProcessStatus = (typeof PROCESS_STATUSES)[number];

export const DocumentParams = z.object({ library_id: Uuid, document_id: Uuid });

/** The multipart form of an upload, after middy's parser: one file part. */
export const DocumentUploadForm = z.object({
  file: z.object({ filename: z.string().min(1).max(512), mimetype: z.string().optional(), content: z.instanceof(Buffer), truncated: z.boolean().optional() }, { message: "Expected a file part" }),
});
export type DocumentUploadForm = z.infer<typeof DocumentUploadForm>;

/**
 * The largest document taken, through the streaming upload service (the Lambda route takes 4 MiB): processing reads a
 * document whole into memory, in a 2 GB function (shared/services/libraries/ingestion/run.ts), hence the bound.
 */
export const MAX_DOCUMENT_BYTES = 100 * 1024 * 1024;

/** The same form as the upload service reads it: the file part's bytes are streamed to S3, only its name and type are checked here. */
export const StreamedDocumentUploadForm = z.object({
  file: z.object({ filename: z.string().min(1).max(512), mimetype: z.string().optional() }, { message: "Expected a file part" }),
});
export type StreamedDocumentUploadForm = z.infer<typeof StreamedDocumentUploadForm>;

export const DOCUMENT_SORT_FIELDS = ["created_at", "name", "size", "last_processed_at"] as const;

export const ListDocumentsQuery = z.object({
  search: z.string().max(512).optional().describe("Case-insensitive search on the document name"),
  page_size: queryInt().min(1).max(100).default(100),
  page: queryInt().min(0).max(100_000).default(0),
  filters_attributes: z.string().max(2000).optional().describe("Deprecated by Mistral; taken and ignored"),
  sort_by: z.enum(DOCUMENT_SORT_FIELDS).default("created_at"),
  sort_order: z.enum(["asc", "desc"]).default("desc"),
});
export type ListDocumentsQuery = z.output<typeof ListDocumentsQuery>;

export const UpdateDocumentRequest = z.object({
  name: z.string().trim().min(1).max(512).optional(),
  attributes: Attributes.nullish().describe("Filterable attributes of the document's chunks: one string, number or boolean per key; null clears them"),
  expires_at: z.null().optional().describe("Documents do not expire on this deployment: only null (no expiry) is taken (docs/libraries.md)"),
});
export type UpdateDocumentRequest = z.output<typeof UpdateDocumentRequest>;

export const DocumentTextQuery = z.object({
  page_start: queryInt().min(0).optional().describe("The first page (from 0) of the text answered"),
  page_end: queryInt().min(0).optional().describe("The page after the last one answered"),
});
export type DocumentTextQuery = z.output<typeof DocumentTextQuery>;

export const DocumentOut = z.object({
  id: z.string(),
  library_id: z.string(),
  hash: z.string().nullable(),
  mime_type: z.string().nullable(),
  extension: z.string().nullable(),
  size: z.number().int().nullable(),
  name: z.string(),
  summary: z.string().nullable(),
  created_at: z.string(),
  last_processed_at: z.string().nullable(),
  number_of_pages: z.number().int().nullable(),
  process_status: z.enum(PROCESS_STATUSES),
  /** Extension: why processing failed (process_status `error` or `missing_content`), else null. */
  process_error: z.string().nullable(),
  uploaded_by_id: z.string().nullable(),
  uploaded_by_type: z.string(),
  tokens_processing_main_content: z.number().int().nullable(),
  tokens_processing_summary: z.number().int().nullable(),
  url: z.string().nullable(),
  attributes: Attributes.nullable(),
  expires_at: z.string().nullable(),
  processing_status: z.string(),
  tokens_processing_total: z.number().int(),
});
export type DocumentOut = z.output<typeof DocumentOut>;

export const ListDocumentsOut = z.object({
  pagination: z.object({ total_items: z.number().int(), total_pages: z.number().int(), current_page: z.number().int(), page_size: z.number().int(), has_more: z.boolean() }),
  data: z.array(DocumentOut),
});
export type ListDocumentsOut = z.output<typeof ListDocumentsOut>;

export const DocumentTextOut = z.object({ text: z.string() });
export type DocumentTextOut = z.output<typeof DocumentTextOut>;

export const ProcessingStatusOut = z.object({
  document_id: z.string(),
  process_status: z.enum(PROCESS_STATUSES),
  process_error: z.string().nullable(),
  processing_status: z.string(),
});
export type ProcessingStatusOut = z.output<typeof ProcessingStatusOut>;

/** The signed URL routes answer a JSON string. */
export const SignedUrlOut = z.string();
