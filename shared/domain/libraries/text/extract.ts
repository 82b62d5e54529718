/**
 * A library document's text, page by page, for the formats read without OCR: DOCX (one page), PPTX (a page a slide),
 * HTML, Markdown and plain text (one page). PDFs and images go through the catalog's OCR model instead
 * (shared/services/ocr), which reads text layers and scans alike.
 */
import type { DocumentFormat } from "./formats.js";
import { utf8Text } from "./formats.js";
import { htmlText } from "./html.js";
import { docxText, pptxText } from "./office.js";

export type TextFormat = Exclude<DocumentFormat, "pdf" | "image">;

export const readsWithOcr = (format: DocumentFormat): format is "pdf" | "image" => format === "pdf" || format === "image";

/** The pages' text; throws ZipTooLarge (./zip.ts) for an Office file that inflates past the limit. */
export function extractText(format: TextFormat, bytes: Buffer): string[] {
  switch (format) {
    case "docx":
      return docxText(bytes);
    case "pptx":
      return pptxText(bytes);
    case "html":
      return [htmlText(utf8Text(bytes) ?? "")];
    case "markdown":
    case "text":
      return [(utf8Text(bytes) ?? "").replace(/\r\n?/g, "\n").trim()];
  }
}
