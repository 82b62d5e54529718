/**
 * What a library document is, judged by its bytes first and its name only where bytes cannot tell (Markdown and
 * plain text are both UTF-8 text). PDFs and images are read by OCR (docs/ocr.md); the rest here (./extract.ts).
 */
import { imageMediaType } from "../../ocr.js";
import { zipEntryNames } from "./zip.js";

export type DocumentFormat = "pdf" | "image" | "docx" | "pptx" | "html" | "markdown" | "text";

export interface FormatFacts {
  format: DocumentFormat;
  mimeType: string;
}

export const SUPPORTED_FORMATS = "PDF, DOCX, PPTX, HTML, Markdown, plain text (UTF-8) or an image (PNG, JPEG, TIFF, GIF, BMP, WebP)";

const DOCX_MAIN = "word/document.xml";
const PPTX_MAIN = "ppt/presentation.xml";
const MARKDOWN_NAME = /\.(md|markdown|mdown|mkd)$/i;
const HTML_NAME = /\.(html?|xhtml)$/i;
const HTML_START = /^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i;

/** The document's format, or undefined when it is none we read. */
export function documentFormat(bytes: Buffer, filename: string): FormatFacts | undefined {
  if (!bytes.length) return { format: "text", mimeType: "text/plain" };
  // A PDF's header may follow up to 1 KB of junk (PDF 1.7, annex H).
  if (bytes.subarray(0, 1024).includes("%PDF-")) return { format: "pdf", mimeType: "application/pdf" };
  const image = imageMediaType(bytes);
  if (image) return { format: "image", mimeType: image };
  if (bytes.subarray(0, 4).equals(ZIP_SIGNATURE)) return officeFormat(bytes);
  const text = utf8Text(bytes);
  if (text === undefined) return undefined;
  if (HTML_NAME.test(filename) || HTML_START.test(text.slice(0, 1024))) return { format: "html", mimeType: "text/html" };
  if (MARKDOWN_NAME.test(filename)) return { format: "markdown", mimeType: "text/markdown" };
  return { format: "text", mimeType: "text/plain" };
}

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

function officeFormat(bytes: Buffer): FormatFacts | undefined {
  const names = zipEntryNames(bytes);
  if (!names) return undefined;
  if (names.has(DOCX_MAIN)) return { format: "docx", mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" };
  if (names.has(PPTX_MAIN)) return { format: "pptx", mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation" };
  return undefined;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The bytes as UTF-8 text (a byte-order mark dropped), or undefined when they are not UTF-8 or hold NUL bytes (binary). */
export function utf8Text(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
