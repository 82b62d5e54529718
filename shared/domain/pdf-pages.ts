/**
 * A PDF's pages as PDFs of one page each (pdf-lib), for OCR engines that read one page per call (Amazon Textract's
 * synchronous DetectDocumentText). Each page keeps its resources (fonts, images); nothing is rendered.
 */
import { PDFDocument } from "pdf-lib";

/** The PDF's page count; throws when pdf-lib cannot parse the file (encrypted, damaged). */
export async function pdfPageCount(bytes: Uint8Array): Promise<number> {
  return (await load(bytes)).getPageCount();
}

/** One single-page PDF per index, in the order asked (indexes from 0, each within the page count). */
export async function singlePages(bytes: Uint8Array, indexes: readonly number[]): Promise<Buffer[]> {
  const source = await load(bytes);
  const out: Buffer[] = [];
  for (const index of indexes) {
    const page = await PDFDocument.create();
    const [copied] = await page.copyPages(source, [index]);
    page.addPage(copied!);
    out.push(Buffer.from(await page.save()));
  }
  return out;
}

// Encrypted PDFs are refused by the OCR engine as they would be whole; pdf-lib only reads their structure.
const load = (bytes: Uint8Array) => PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
