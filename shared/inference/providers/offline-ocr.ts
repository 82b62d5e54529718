/**
 * The offline provider's OCR (docs/ocr.md): real engines that run in the process, with nothing fetched at run time.
 *
 * - Images: Tesseract (tesseract.js, its WebAssembly core from npm) with the English LSTM model of
 *   `@tesseract.js-data/eng`, read from the installed package (`langPath` is its folder, `cacheMethod: "none"`: no
 *   download, no cache written). One worker per process, started on first use and ended after a minute idle.
 * - PDFs: the text layer, page by page (unpdf's build of PDF.js); a page without one (a scan) has its embedded images
 *   read by Tesseract instead. Pages are not rendered: that needs a canvas (a native module), so drawings and vector
 *   text outside the text layer are not read.
 *
 * Both engines are imported here only, lazily: they are left out of the Lambda bundles (infra/build.ts), where the
 * OCR models are Amazon Textract's or an upstream's.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pagesToRead, pdfPageDimensions } from "../../domain/ocr.js";
import type { OcrPage } from "../../schemas/ocr.js";
import { UpstreamError, type OcrCall, type OcrResult } from "../types.js";

/** How long an idle Tesseract worker is kept: the next request skips its ~1 s start while traffic lasts. */
const IDLE_MS = 60_000;
/** Embedded images smaller than this on either side (icons, rules) are not worth reading. */
const MIN_SCAN_SIDE = 32;

type TesseractWorker = import("tesseract.js").Worker;

let worker: Promise<TesseractWorker> | undefined;
let idle: NodeJS.Timeout | undefined;
/** Recognitions run one at a time on the one worker. */
let queue: Promise<unknown> = Promise.resolve();

/** The English model's folder inside the installed package: the LSTM-only ("best_int") data the default engine mode reads. */
export function englishModelDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@tesseract.js-data/eng/package.json")), "4.0.0_best_int");
}

async function startWorker(): Promise<TesseractWorker> {
  const tesseract = await importEngine(() => import("tesseract.js"), "tesseract.js");
  const modelDir = englishModelDir();
  return tesseract.createWorker("eng", tesseract.OEM.LSTM_ONLY, { langPath: modelDir, cachePath: modelDir, cacheMethod: "none", gzip: true });
}

/** The text Tesseract reads in an image (bytes of a PNG, JPEG, TIFF, GIF, BMP, WebP or PNM file), trimmed. */
export function recognize(image: Uint8Array): Promise<string> {
  const run = queue.then(async () => {
    if (idle) clearTimeout(idle);
    worker ??= startWorker();
    worker.catch(() => (worker = undefined));
    try {
      // A Buffer, never a string: tesseract.js would fetch a URL or read a path.
      const { data } = await (await worker).recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
      return data.text.trim();
    } finally {
      idle = setTimeout(() => void closeOcrEngine(), IDLE_MS);
      idle.unref();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

/** Ends the Tesseract worker (idle timeout, tests, shutdown); the next recognition starts another. */
export async function closeOcrEngine(): Promise<void> {
  if (idle) clearTimeout(idle);
  idle = undefined;
  const running = worker;
  worker = undefined;
  await (await running?.catch(() => undefined))?.terminate();
}

export async function readDocument(request: OcrCall): Promise<OcrResult> {
  if (request.kind === "image") {
    pagesToRead(request.pages, 1);
    const markdown = await recognize(request.document).catch(unreadable);
    return { pages: [{ index: 0, markdown, images: [], dimensions: request.dimensions ?? null }] };
  }
  return readPdf(request);
}

const unreadable = (error: unknown): never => {
  throw new UpstreamError(400, `The offline OCR engine could not read the image (${error instanceof Error ? error.message : String(error)})`);
};

async function readPdf(request: OcrCall): Promise<OcrResult> {
  polyfillTransfer();
  const unpdf = await importEngine(() => import("unpdf"), "unpdf");
  let pdf: Awaited<ReturnType<typeof unpdf.getDocumentProxy>>;
  try {
    // A copy: PDF.js hands the buffer to its worker and may detach it.
    pdf = await unpdf.getDocumentProxy(new Uint8Array(request.document));
  } catch (error) {
    throw new UpstreamError(400, `The PDF could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    const wanted = pagesToRead(request.pages, pdf.numPages);
    const pages: OcrPage[] = [];
    for (const index of wanted) {
      const page = await pdf.getPage(index + 1);
      const { width, height } = page.getViewport({ scale: 1 });
      let markdown = markdownOfText((await page.getTextContent()).items as TextItem[]);
      if (!markdown) markdown = await readScan(unpdf, pdf, index + 1);
      pages.push({ index, markdown, images: [], dimensions: pdfPageDimensions(width, height) });
    }
    return { pages };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** A page with no text layer: the text of its embedded images (a scan is one), each read by Tesseract, in order. */
async function readScan(unpdf: typeof import("unpdf"), pdf: Parameters<typeof unpdf.extractImages>[0], pageNumber: number): Promise<string> {
  const images = (await unpdf.extractImages(pdf, pageNumber)).filter((image) => image.width >= MIN_SCAN_SIDE && image.height >= MIN_SCAN_SIDE);
  const texts: string[] = [];
  for (const image of images) {
    const text = await recognize(pnmOf(image.data, image.width, image.height, image.channels)).catch(unreadable);
    if (text) texts.push(text);
  }
  return texts.join("\n\n");
}

/** Raw pixels as a binary PNM file (PGM for grey, PPM for colour; alpha dropped), which Tesseract reads. */
export function pnmOf(data: Uint8ClampedArray, width: number, height: number, channels: 1 | 3 | 4): Uint8Array {
  const grey = channels === 1;
  const header = Buffer.from(`${grey ? "P5" : "P6"}\n${width} ${height}\n255\n`, "latin1");
  if (channels !== 4) return Buffer.concat([header, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
  const rgb = Buffer.alloc(width * height * 3);
  for (let pixel = 0; pixel < width * height; pixel += 1) {
    rgb[pixel * 3] = data[pixel * 4]!;
    rgb[pixel * 3 + 1] = data[pixel * 4 + 1]!;
    rgb[pixel * 3 + 2] = data[pixel * 4 + 2]!;
  }
  return Buffer.concat([header, rgb]);
}

interface TextItem {
  str?: string;
  hasEOL?: boolean;
  height?: number;
  /** [a, b, c, d, x, y]: y grows upwards, in points. */
  transform?: number[];
}

/**
 * A page's text layer as markdown: items in PDF.js's order, a new line where an item ends one or the baseline moves
 * by more than half a line, a blank line where the gap between baselines is more than 1.6 lines (a new paragraph).
 */
export function markdownOfText(items: readonly TextItem[]): string {
  const lines: { text: string; y: number; height: number }[] = [];
  let current: { text: string; y: number; height: number } | undefined;
  let ended = false;
  for (const item of items) {
    if (item.str === undefined) continue;
    const y = item.transform?.[5] ?? current?.y ?? 0;
    const height = item.height || current?.height || 12;
    if (!current || ended || Math.abs(y - current.y) > height / 2) {
      current = { text: "", y, height };
      lines.push(current);
    }
    current.text += item.str;
    ended = Boolean(item.hasEOL);
  }
  let markdown = "";
  let previous: (typeof lines)[number] | undefined;
  for (const line of lines) {
    const text = line.text.replace(/\s+/g, " ").trim();
    if (!text) continue;
    if (markdown) markdown += previous && previous.y - line.y > 1.6 * Math.max(previous.height, line.height) ? "\n\n" : "\n";
    markdown += text;
    previous = line;
  }
  return markdown;
}

/** A missing engine (a bundle that left it out, an install without it) is a clear 501, not a crash. */
async function importEngine<T>(load: () => Promise<T>, name: string): Promise<T> {
  try {
    return await load();
  } catch {
    throw new UpstreamError(501, `The offline OCR engine (${name}) is not installed here: it runs under npm start, not in Lambda; configure Amazon Textract or an OCR upstream (docs/ocr.md)`);
  }
}

/**
 * PDF.js extracts images with ArrayBuffer.prototype.transferToFixedLength (Node 21+); Node 20 lacks it. A copy does
 * what PDF.js needs of it (a buffer of the given length with the same bytes; PDF.js never reads the old one again).
 */
function polyfillTransfer(): void {
  if ("transferToFixedLength" in ArrayBuffer.prototype) return;
  Object.defineProperty(ArrayBuffer.prototype, "transferToFixedLength", {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length?: number) {
      const copy = new ArrayBuffer(length ?? this.byteLength);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(this.byteLength, copy.byteLength)));
      return copy;
    },
  });
}
