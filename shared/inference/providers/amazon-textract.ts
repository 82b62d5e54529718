/**
 * Amazon Textract's synchronous DetectDocumentText as an OCR provider (docs/ocr.md).
 *
 * One call reads one page: an image (PNG, JPEG, TIFF) or one page of a PDF, up to Textract's 10 MB for synchronous
 * calls. A PDF of several pages is split into single-page PDFs here (pdf-lib) and read a few pages at a time, so the
 * OCR route, batch lines and library ingestion read whole PDFs without the asynchronous API and its S3 round trip.
 *
 * The page's markdown is its LINE blocks in Textract's reading order, one a line, with a blank line where the gap to
 * the previous line is more than a line's height (a new paragraph). No images, tables or annotations: those need
 * AnalyzeDocument or an upstream that serves Mistral OCR. The page's dimensions are the image's pixels when its
 * header says them (Textract's geometry is relative), else null.
 */
import { DetectDocumentTextCommand, TextractClient, type Block } from "@aws-sdk/client-textract";
import { pagesToRead } from "../../domain/ocr.js";
import { pdfPageCount, singlePages } from "../../domain/pdf-pages.js";
import { registerProviderFactory } from "../registry.js";
import { UpstreamError, type CallOptions, type OcrCall, type OcrResult } from "../types.js";
import { refuseAnnotations } from "./ocr-annotations.js";
import { AudioOnlyProvider } from "./audio-only.js";
import { isAbort } from "./bedrock/errors.js";

/** Pages of one PDF read at once: within DetectDocumentText's default 10 transactions a second in most regions. */
const PAGE_CALLS = 4;

/** What a synchronous Textract call takes (its quota: "10 MB for synchronous operations"). */
export const TEXTRACT_SYNC_MAX_BYTES = 10 * 1024 * 1024;

const THROTTLED = new Set(["ThrottlingException", "ProvisionedThroughputExceededException", "LimitExceededException"]);

export class AmazonTextractProvider extends AudioOnlyProvider {
  readonly backend = "amazon-textract";
  private readonly client: TextractClient;

  constructor(config: { region?: string } = {}) {
    super();
    this.client = new TextractClient(config.region ? { region: config.region } : {});
  }

  /**
   * An image is one call. A PDF is split into single-page PDFs (shared/domain/pdf-pages.ts) read PAGE_CALLS at a
   * time, each page answered under its own index: Textract's synchronous API reads one page per call.
   */
  async ocr(request: OcrCall, options: CallOptions): Promise<OcrResult> {
    refuseAnnotations(this.backend, request);
    if (request.document.byteLength > TEXTRACT_SYNC_MAX_BYTES) {
      throw new UpstreamError(413, `Amazon Textract reads documents of at most ${TEXTRACT_SYNC_MAX_BYTES} bytes (10 MB) in one call; this one is ${request.document.byteLength}`);
    }
    if (request.kind === "image") {
      pagesToRead(request.pages, 1);
      return { pages: [{ index: 0, markdown: await this.detect(request.document, options), images: [], dimensions: request.dimensions ?? null }] };
    }
    let count: number;
    try {
      count = await pdfPageCount(request.document);
    } catch {
      throw new UpstreamError(400, "Amazon Textract could not read the document: its PDF structure cannot be parsed");
    }
    const indexes = pagesToRead(request.pages, count);
    const documents = count === 1 ? [request.document] : await singlePages(request.document, indexes);
    const pages: OcrResult["pages"] = [];
    for (let at = 0; at < indexes.length; at += PAGE_CALLS) {
      const read = await Promise.all(documents.slice(at, at + PAGE_CALLS).map((page) => this.detect(page, options)));
      read.forEach((markdown, i) => pages.push({ index: indexes[at + i]!, markdown, images: [], dimensions: null }));
    }
    return { pages, pagesProcessed: pages.length };
  }

  private async detect(document: Uint8Array, options: CallOptions): Promise<string> {
    try {
      const answer = await this.client.send(new DetectDocumentTextCommand({ Document: { Bytes: document } }), { abortSignal: options.signal });
      return markdownOfLines(answer.Blocks ?? []);
    } catch (error) {
      if (isAbort(error)) throw error;
      const name = error instanceof Error ? error.name : "UnknownError";
      throw failureNamed(name, error instanceof Error ? error.message : "");
    }
  }
}

/** LINE blocks in order, one a line; a blank line where the gap above a line is more than its height. */
export function markdownOfLines(blocks: readonly Block[]): string {
  const lines = blocks.filter((block) => block.BlockType === "LINE" && block.Text);
  let markdown = "";
  let previousBottom: number | undefined;
  for (const line of lines) {
    const box = line.Geometry?.BoundingBox;
    const top = box?.Top ?? 0;
    const height = box?.Height ?? 0;
    if (markdown) markdown += previousBottom !== undefined && top - previousBottom > height ? "\n\n" : "\n";
    markdown += line.Text;
    previousBottom = top + height;
  }
  return markdown;
}

function failureNamed(name: string, detail: string): UpstreamError {
  if (name === "UnsupportedDocumentException") {
    return new UpstreamError(400, "Amazon Textract cannot read this document synchronously: it reads PNG, JPEG, TIFF and PDF pages");
  }
  if (name === "BadDocumentException") return new UpstreamError(400, `Amazon Textract could not read the document (${detail || name})`);
  if (name === "DocumentTooLargeException") return new UpstreamError(413, `The document is too large for Amazon Textract (${detail || name})`);
  if (THROTTLED.has(name)) return new UpstreamError(429, `Amazon Textract is throttling requests (${name}); retry later`);
  if (name === "AccessDeniedException" || name === "UnrecognizedClientException") return new UpstreamError(502, `Amazon Textract refused the request (${name}); check IAM`);
  return new UpstreamError(502, `Amazon Textract failed (${name}${detail ? `: ${detail}` : ""})`);
}

registerProviderFactory("amazon-textract", (config) => new AmazonTextractProvider({ region: "region" in config ? config.region : undefined }));
