/**
 * POST /v1/ocr (extension; the SDK's `ocr.process`, docs/ocr.md): a document from a file of the workspace, a URL
 * fetched under the outbound guard, or a `data:` URL, checked (what it is, by its bytes; its size; the pages asked
 * for) before any model is called, then read by the OCR model's provider: an upstream that serves Mistral OCR,
 * Amazon Textract, or the offline engines.
 */
import { fileBlobs } from "../../blobs/files.js";
import { BadRequest } from "../../domain/errors.js";
import { requireEndpoint, type ModelEntry } from "../../domain/models.js";
import { dataUrlBytes, documentFacts, documentIssue, documentTooLarge, MAX_OCR_BYTES, parsePageSelection } from "../../domain/ocr.js";
import { providerNamed } from "../../inference/registry.js";
// Registers the Amazon Textract provider (and its client) in this function only: registry.ts.
import "../../inference/providers/amazon-textract.js";
import { UnsupportedByProvider } from "../../inference/types.js";
import { fetchBytes, OutboundError } from "../../net/outbound.js";
import type { OcrDocument, OcrRequest, OcrResponse } from "../../schemas/ocr.js";
import * as files from "../files/files.js";
import type { ModelAnswer } from "../inference/completions.js";
import { failuresRecorded, recordUsage, type CallContext } from "../inference/usage.js";
import { bodyModel, serving } from "../models/catalog.js";

/** How long fetching a `document_url` or `image_url` may take, redirects included. */
const URL_TIMEOUT_MS = 30_000;

export interface Document {
  bytes: Buffer;
  name?: string;
}

/** The request's fields a provider may act on, beyond the document, the model and the pages. */
type OcrCallOptions = Omit<OcrRequest, "model" | "document" | "pages">;

export async function processDocument(ctx: CallContext, request: OcrRequest): Promise<ModelAnswer<OcrResponse>> {
  const pages = parsePageSelection(request.pages);
  const { model: modelName, document: requested, pages: _pages, ...options } = request;
  const model = await ocrModel(ctx, modelName);
  await ocrProvider(model);
  const document = await documentOf(ctx, requested);
  return readDocument(ctx, model, document, { pages, options });
}

/**
 * Reads a document's bytes with an OCR model of the catalog (the model named, or its first OCR model): what the route
 * and the library ingestion share. Usage is recorded with no tokens (OCR is priced per page upstream, docs/ocr.md).
 */
export async function readDocument(
  ctx: CallContext,
  model: ModelEntry,
  document: Document,
  { pages, options = { extract_header: false, extract_footer: false, include_blocks: true } }: { pages?: number[] | undefined; options?: OcrCallOptions } = {},
): Promise<ModelAnswer<OcrResponse>> {
  const provider = await ocrProvider(model);
  const facts = documentFacts(document.bytes);

  const started = Date.now();
  const read = await failuresRecorded(ctx, { model, provider }, started, () =>
    provider.ocr(
      {
        model: model.upstream,
        document: document.bytes,
        kind: facts.kind,
        mediaType: facts.mediaType,
        ...(document.name ? { documentName: document.name } : {}),
        ...(facts.dimensions ? { dimensions: facts.dimensions } : {}),
        ...(pages ? { pages } : {}),
        options,
      },
      { signal: ctx.signal },
    ),
  );
  await recordUsage(ctx, { model, provider }, { promptTokens: 0, completionTokens: 0, started, status: 200 });
  const body: OcrResponse = {
    pages: read.pages,
    model: model.id,
    document_annotation: read.documentAnnotation ?? null,
    usage_info: { pages_processed: read.pagesProcessed ?? read.pages.length, doc_size_bytes: document.bytes.length },
  };
  return { kind: "answer", body, backend: provider.backend };
}

/** The model named, or the first the catalog has for OCR when the request names none (`model: null`). */
/** The model's provider, when the model reads documents and its provider can: a 400 or a 501 otherwise, before any document is fetched. */
async function ocrProvider(model: ModelEntry) {
  requireEndpoint(model, "ocr");
  const provider = await providerNamed(model.provider);
  if (!provider.ocr) throw new UnsupportedByProvider(provider.backend, "OCR");
  return provider as typeof provider & Required<Pick<typeof provider, "ocr">>;
}

export async function ocrModel(ctx: CallContext, name: string | null): Promise<ModelEntry> {
  if (name) return bodyModel(ctx.caller, name);
  const [model] = await serving(ctx.caller, "ocr");
  if (!model) throw new BadRequest("No OCR model is configured in this deployment; name one with model", "model_capability_missing", "model");
  return bodyModel(ctx.caller, model.id);
}

async function documentOf(ctx: CallContext, document: OcrDocument): Promise<Document> {
  if (document.type === "file") {
    const record = await files.get(ctx.caller, document.file_id);
    if (record.bytes > MAX_OCR_BYTES) throw documentTooLarge(record.bytes);
    const chunks: Uint8Array[] = [];
    for await (const chunk of fileBlobs.read(record.objectKey)) chunks.push(chunk);
    return { bytes: Buffer.concat(chunks), name: record.filename };
  }
  if (document.type === "document_url") return fromUrl(document.document_url, document.document_name ?? undefined, ctx.signal);
  return fromUrl(typeof document.image_url === "string" ? document.image_url : document.image_url.url, undefined, ctx.signal);
}

/** A `data:` URL's bytes, or an http(s) URL under the outbound rules (shared/net/outbound.ts): what goes wrong is the caller's 422 or 413. */
async function fromUrl(url: string, name: string | undefined, signal: AbortSignal | undefined): Promise<Document> {
  if (/^data:/i.test(url)) return { bytes: dataUrlBytes(url).bytes, ...(name ? { name } : {}) };
  try {
    const got = await fetchBytes(url, { maxBytes: MAX_OCR_BYTES, timeoutMs: URL_TIMEOUT_MS, signal });
    const named = name ?? lastSegment(got.url);
    return { bytes: got.bytes, ...(named ? { name: named } : {}) };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (error.kind === "too_large") throw documentTooLarge();
    throw documentIssue(`The document could not be fetched: ${error.message}`);
  }
}

function lastSegment(url: string): string | undefined {
  const segment = new URL(url).pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(segment) || undefined;
  } catch {
    return segment || undefined;
  }
}
