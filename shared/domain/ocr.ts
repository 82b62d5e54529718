/**
 * OCR rules (docs/ocr.md): which documents we read, how large, which pages, and what is known of a page's size
 * before any engine runs. Pure: bytes in, facts or the caller's 422/413 out.
 */
import type { OcrPageDimensions } from "../schemas/ocr.js";
import { PayloadTooLarge, Unprocessable } from "./errors.js";

/** Mistral's own limit for one OCR document (50 MB), from any source. */
export const MAX_OCR_BYTES = 50 * 1024 * 1024;
/** Mistral's page limit for one OCR request. */
export const MAX_OCR_PAGES = 1000;
/** The resolution Mistral reports for a rendered PDF page (its example: 1700 × 2200 for US Letter at 200 dpi). */
export const PDF_RENDER_DPI = 200;
/** What an image's dimensions say when its file names no resolution. */
export const IMAGE_DEFAULT_DPI = 72;

export type DocumentKind = "pdf" | "image";

export interface DocumentFacts {
  kind: DocumentKind;
  /** The media type its bytes say it is (never the one a client declared). */
  mediaType: string;
  /** An image's size in pixels, when its header says it. */
  dimensions?: OcrPageDimensions;
}

export const documentIssue = (msg: string) => new Unprocessable([{ loc: ["body", "document"], msg, type: "value_error" }]);

export const documentTooLarge = (bytes?: number) =>
  new PayloadTooLarge(`The document is ${bytes === undefined ? "" : `${bytes} bytes, `}more than the ${MAX_OCR_BYTES} bytes (50 MiB) an OCR request may read`, "document_too_large");

/** Images by their first bytes: the formats Tesseract and Textract read (Textract: PNG, JPEG, TIFF). */
const IMAGE_SIGNATURES: [string, (b: Buffer) => boolean][] = [
  ["image/png", (b) => b.length > 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a],
  ["image/jpeg", (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ["image/tiff", (b) => b.length > 4 && (b.toString("latin1", 0, 4) === "II*\0" || b.toString("latin1", 0, 4) === "MM\0*")],
  ["image/gif", (b) => b.length > 6 && /^GIF8[79]a$/.test(b.toString("latin1", 0, 6))],
  ["image/bmp", (b) => b.length > 26 && b.toString("latin1", 0, 2) === "BM"],
  ["image/webp", (b) => b.length > 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP"],
];

export const READABLE_FORMATS = "PDF, PNG, JPEG, TIFF, GIF, BMP or WebP";

/** What the bytes are (by their content, as music-metadata judges audio); a 422 on `document` for anything else. */
export function documentFacts(bytes: Buffer): DocumentFacts {
  if (!bytes.length) throw documentIssue("The document is empty");
  if (bytes.length > MAX_OCR_BYTES) throw documentTooLarge(bytes.length);
  // A PDF's header may follow up to 1 KB of junk (PDF 1.7, annex H).
  if (bytes.subarray(0, 1024).includes("%PDF-")) return { kind: "pdf", mediaType: "application/pdf" };
  const mediaType = imageMediaType(bytes);
  if (!mediaType) throw documentIssue(`The document is not one we can read; send ${READABLE_FORMATS}`);
  const size = imageSize(mediaType, bytes);
  return { kind: "image", mediaType, ...(size ? { dimensions: { dpi: IMAGE_DEFAULT_DPI, ...size } } : {}) };
}

/** The media type of an image OCR reads, by its signature; undefined for anything else. */
export const imageMediaType = (bytes: Buffer): string | undefined => IMAGE_SIGNATURES.find(([, matches]) => matches(bytes))?.[0];

/** Width and height from the header of a PNG, JPEG, GIF or BMP (others: unknown until an engine reads them). */
export function imageSize(mediaType: string, b: Buffer): { width: number; height: number } | undefined {
  if (mediaType === "image/png") return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (mediaType === "image/gif") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (mediaType === "image/bmp") return { width: Math.abs(b.readInt32LE(18)), height: Math.abs(b.readInt32LE(22)) };
  if (mediaType === "image/jpeg") {
    // The first start-of-frame marker (SOF0–SOF15 but DHT, JPG and DAC) holds the size.
    for (let at = 2; at + 9 < b.length; ) {
      if (b[at] !== 0xff) return undefined;
      const marker = b[at + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
      }
      at += 2 + b.readUInt16BE(at + 2);
    }
  }
  return undefined;
}

/** A PDF page's size in points, as its engine reads it, at the resolution Mistral reports. */
export const pdfPageDimensions = (widthPoints: number, heightPoints: number): OcrPageDimensions => ({
  dpi: PDF_RENDER_DPI,
  width: Math.round((widthPoints * PDF_RENDER_DPI) / 72),
  height: Math.round((heightPoints * PDF_RENDER_DPI) / 72),
});

const pagesIssue = (msg: string) => new Unprocessable([{ loc: ["body", "pages"], msg, type: "value_error" }]);

/**
 * The `pages` a request selects, from 0, ascending and without repeats: a list of numbers, or text such as
 * `"0,2-4"`. Undefined selects every page.
 */
export function parsePageSelection(pages: string | number[] | null | undefined): number[] | undefined {
  if (pages === null || pages === undefined) return undefined;
  const chosen = new Set<number>();
  if (Array.isArray(pages)) for (const page of pages) chosen.add(page);
  else {
    for (const part of pages.split(",").map((p) => p.trim())) {
      const range = /^(\d+)\s*(?:-\s*(\d+))?$/.exec(part);
      if (!range) throw pagesIssue(`'${part}' is not a page number or a range such as 2-4 (pages start at 0)`);
      const from = Number(range[1]);
      const to = range[2] === undefined ? from : Number(range[2]);
      if (to < from) throw pagesIssue(`The range ${part} ends before it starts`);
      if (to - from >= MAX_OCR_PAGES || chosen.size + to - from >= MAX_OCR_PAGES) throw pagesIssue(`At most ${MAX_OCR_PAGES} pages may be selected`);
      for (let page = from; page <= to; page += 1) chosen.add(page);
    }
  }
  if (!chosen.size) throw pagesIssue("Select at least one page, or leave pages out for all of them");
  if (chosen.size > MAX_OCR_PAGES) throw pagesIssue(`At most ${MAX_OCR_PAGES} pages may be selected`);
  return [...chosen].sort((a, b) => a - b);
}

/** The pages to read of a document of `count` pages: the selection (each must exist) or all, at most MAX_OCR_PAGES. */
export function pagesToRead(selection: number[] | undefined, count: number): number[] {
  if (!selection) {
    if (count > MAX_OCR_PAGES) throw pagesIssue(`The document has ${count} pages, more than the ${MAX_OCR_PAGES} one request reads; select some with pages`);
    return Array.from({ length: count }, (_, page) => page);
  }
  const missing = selection.filter((page) => page >= count);
  if (missing.length) throw pagesIssue(`The document has ${count} page${count === 1 ? "" : "s"} (0 to ${count - 1}); there is no page ${missing.join(", ")}`);
  return selection;
}

/** A `data:` URL's bytes (base64 or percent-encoded) and the media type it declares; a 422 on `document` if malformed. */
export function dataUrlBytes(url: string): { bytes: Buffer; mediaType: string } {
  const comma = url.indexOf(",");
  const header = comma < 0 ? "" : url.slice(5, comma);
  if (comma < 0 || !/^[\w.+-]+\/[\w.+-]+(;[\w-]+=[^;,]*)*(;base64)?$|^(;base64)?$/i.test(header)) throw documentIssue("The data: URL is malformed (expected data:<type>;base64,<data>)");
  const payload = url.slice(comma + 1);
  const base64 = /;base64$/i.test(header);
  if (base64 && !/^[A-Za-z0-9+/=\s_-]*$/.test(payload)) throw documentIssue("The data: URL's base64 payload is not base64");
  let bytes: Buffer;
  try {
    bytes = base64 ? Buffer.from(payload, "base64") : Buffer.from(decodeURIComponent(payload), "latin1");
  } catch {
    throw documentIssue("The data: URL's payload is not percent-encoded correctly");
  }
  return { bytes, mediaType: header.split(";")[0] || "text/plain" };
}
