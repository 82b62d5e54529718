/**
 * A library document's text, the first stage of ingestion (docs/libraries.md): PDFs and images through the catalog's
 * OCR model (text layers and scans alike: Tesseract offline, Textract or a Mistral OCR upstream in the cloud), Office,
 * HTML, Markdown and text files read here. What cannot be read is a DocumentUnreadable whose reason the document's
 * status shows.
 */
import { ApiError } from "../../../domain/errors.js";
import { extractText, readsWithOcr } from "../../../domain/libraries/text/extract.js";
import { documentFormat, SUPPORTED_FORMATS, type DocumentFormat } from "../../../domain/libraries/text/formats.js";
import { ZipTooLarge } from "../../../domain/libraries/text/zip.js";
import type { CallContext } from "../../inference/usage.js";
import { ocrModel, readDocument } from "../../ocr/ocr.js";

export interface DocumentText {
  format: DocumentFormat;
  mimeType: string;
  /** Each page's text (a PDF page, a slide; one page for the rest). */
  pages: string[];
  /** The OCR model that read it, when one did. */
  ocrModel?: string;
}

/** A document ingestion cannot read: the reason is the user's to see (no internals). */
export class DocumentUnreadable extends Error {}

export async function documentText(ctx: CallContext, bytes: Buffer, filename: string): Promise<DocumentText> {
  const facts = documentFormat(bytes, filename);
  if (!facts) throw new DocumentUnreadable(`The document is not one we can read; upload ${SUPPORTED_FORMATS}`);
  if (!readsWithOcr(facts.format)) {
    try {
      return { ...facts, pages: extractText(facts.format, bytes) };
    } catch (error) {
      if (error instanceof ZipTooLarge) throw new DocumentUnreadable(error.message);
      throw new DocumentUnreadable(`The ${facts.format.toUpperCase()} document could not be read: it is damaged or not what its content says`);
    }
  }
  try {
    const model = await ocrModel(ctx, null);
    const answer = await readDocument(ctx, model, { bytes, name: filename });
    if (answer.kind !== "answer") throw new Error("OCR answered with a stream");
    return { ...facts, pages: answer.body.pages.map((page) => page.markdown), ocrModel: model.id };
  } catch (error) {
    // A client mistake of OCR (no OCR model, a page limit, a damaged PDF) is why the document failed; a fault is not.
    if (error instanceof ApiError && error.status < 500) throw new DocumentUnreadable(error.message);
    throw error;
  }
}
