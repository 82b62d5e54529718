/**
 * Amazon Textract's synchronous DetectDocumentText as an OCR provider (docs/ocr.md).
 *
 * One call reads one page: an image (PNG, JPEG, TIFF) or a single-page PDF, up to Textract's 10 MB for
 * synchronous calls. A multi-page PDF is refused by Textract (UnsupportedDocumentException) and answered as a 400
 * that says so: reading it page by page needs the asynchronous API through S3, which this provider does not use.
 *
 * The page's markdown is its LINE blocks in Textract's reading order, one a line, with a blank line where the gap to
 * the previous line is more than a line's height (a new paragraph). No images, tables or annotations: those need
 * AnalyzeDocument or an upstream that serves Mistral OCR. The page's dimensions are the image's pixels when its
 * header says them (Textract's geometry is relative), else null.
 */
import { DetectDocumentTextCommand, TextractClient, type Block } from "@aws-sdk/client-textract";
import { pagesToRead } from "../../domain/ocr.js";
import { registerProviderFactory } from "../registry.js";
import { UpstreamError, type CallOptions, type OcrCall, type OcrResult } from "../types.js";
import { refuseAnnotations } from "./ocr-annotations.js";
import { AudioOnlyProvider } from "./audio-only.js";
import { isAbort } from "./bedrock/errors.js";

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

  async ocr(request: OcrCall, options: CallOptions): Promise<OcrResult> {
    refuseAnnotations(this.backend, request);
    if (request.document.byteLength > TEXTRACT_SYNC_MAX_BYTES) {
      throw new UpstreamError(413, `Amazon Textract reads documents of at most ${TEXTRACT_SYNC_MAX_BYTES} bytes (10 MB) in one call; this one is ${request.document.byteLength}`);
    }
    // A single page: index 0 is all there is (a PDF of more pages is refused below, by Textract).
    if (request.kind === "image") pagesToRead(request.pages, 1);
    else if (request.pages && !(request.pages.length === 1 && request.pages[0] === 0)) {
      throw new UpstreamError(400, "Amazon Textract reads one page per call: select page 0 or leave pages out");
    }
    let blocks: Block[];
    try {
      const answer = await this.client.send(new DetectDocumentTextCommand({ Document: { Bytes: request.document } }), { abortSignal: options.signal });
      blocks = answer.Blocks ?? [];
    } catch (error) {
      if (isAbort(error)) throw error;
      const name = error instanceof Error ? error.name : "UnknownError";
      throw failureNamed(name, error instanceof Error ? error.message : "");
    }
    return { pages: [{ index: 0, markdown: markdownOfLines(blocks), images: [], dimensions: request.dimensions ?? null }] };
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
    return new UpstreamError(400, "Amazon Textract cannot read this document synchronously: it reads PNG, JPEG, TIFF and single-page PDFs");
  }
  if (name === "BadDocumentException") return new UpstreamError(400, `Amazon Textract could not read the document (${detail || name})`);
  if (name === "DocumentTooLargeException") return new UpstreamError(413, `The document is too large for Amazon Textract (${detail || name})`);
  if (THROTTLED.has(name)) return new UpstreamError(429, `Amazon Textract is throttling requests (${name}); retry later`);
  if (name === "AccessDeniedException" || name === "UnrecognizedClientException") return new UpstreamError(502, `Amazon Textract refused the request (${name}); check IAM`);
  return new UpstreamError(502, `Amazon Textract failed (${name}${detail ? `: ${detail}` : ""})`);
}

registerProviderFactory("amazon-textract", (config) => new AmazonTextractProvider({ region: "region" in config ? config.region : undefined }));
