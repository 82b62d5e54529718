/**
 * Documents for the OCR and library tests, made in memory: PDFs written by hand (a text layer in Helvetica, or a
 * "scan": one greyscale image XObject and no text), minimal DOCX and PPTX files, and the PNG fixture whose text is known.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";

/**
 * A 640 × 140 greyscale PNG reading "Invoice 4821 paid" in DejaVu Sans at 44 px, made once with ImageMagick:
 * `convert -size 640x140 xc:white -font DejaVu-Sans -pointsize 44 -fill black -annotate +24+90 "Invoice 4821 paid"
 * -strip -colors 2 -depth 8 test/fixtures/ocr/invoice.png`.
 */
export const INVOICE_PNG = readFileSync(join(import.meta.dirname, "..", "fixtures", "ocr", "invoice.png"));
export const INVOICE_TEXT = "Invoice 4821 paid";

/** PDF objects numbered from 1 in order, with the cross-reference table and trailer; object 1 is the catalog. */
function pdfOf(objects: (string | { head: string; stream: Buffer })[]): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n", "latin1")];
  let length = parts[0]!.length;
  const push = (part: Buffer) => {
    parts.push(part);
    length += part.length;
  };
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(length);
    if (typeof object === "string") push(Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, "latin1"));
    else {
      push(Buffer.from(`${i + 1} 0 obj\n${object.head}\nstream\n`, "latin1"));
      push(object.stream);
      push(Buffer.from("\nendstream\nendobj\n", "latin1"));
    }
  });
  const xref = length;
  const table = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  push(Buffer.from(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${table}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`, "latin1"));
  return Buffer.concat(parts);
}

const escaped = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);

/**
 * A US Letter PDF whose pages hold these paragraphs of lines (Helvetica 14 pt, 18 pt apart; a paragraph's gap is
 * three lines): `aTextPdf([[["Title"], ["First line", "second line"]], [["Page two"]]])`.
 */
export function aTextPdf(pages: string[][][]): Buffer {
  const objects: (string | { head: string; stream: Buffer })[] = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"];
  const kids: number[] = [];
  for (const paragraphs of pages) {
    let y = 720;
    const ops: string[] = [];
    for (const paragraph of paragraphs) {
      for (const line of paragraph) {
        ops.push(`BT /F1 14 Tf 72 ${y} Td (${escaped(line)}) Tj ET`);
        y -= 18;
      }
      y -= 36;
    }
    const content = Buffer.from(ops.join("\n"), "latin1");
    objects.push({ head: `<< /Length ${content.length} >>`, stream: content });
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`);
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  return pdfOf(objects);
}

/**
 * A one-page PDF with no text layer, only an image: a scan. The image is a greyscale, non-interlaced 8-bit PNG's own
 * compressed data (its IDAT chunks), which PDF's FlateDecode reads with the PNG predictors: nothing is decoded here.
 */
export function aScannedPdf(png: Buffer = INVOICE_PNG): Buffer {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (png[24] !== 8 || png[25] !== 0 || png[28] !== 0) throw new Error("aScannedPdf takes an 8-bit greyscale, non-interlaced PNG");
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString("latin1", at + 4, at + 8) === "IDAT") idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const pixels = Buffer.concat(idat);
  const content = Buffer.from(`q ${width} 0 0 ${height} 0 0 cm /Scan Do Q`, "latin1");
  return pdfOf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /XObject << /Scan 4 0 R >> >> /Contents 5 0 R >>`,
    {
      head: `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 1 /BitsPerComponent 8 /Columns ${width} >> /Length ${pixels.length} >>`,
      stream: pixels,
    },
    { head: `<< /Length ${content.length} >>`, stream: content },
  ]);
}

export const dataUrl = (bytes: Buffer, type: string) => `data:${type};base64,${bytes.toString("base64")}`;

const xmlEscaped = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** A DOCX block: a paragraph, a heading of a level, a bulleted item, or a table of rows of cells. */
export type DocxBlock = string | { heading: number; text: string } | { item: string } | { table: string[][] };

const docxParagraph = (text: string, properties = "") =>
  `<w:p>${properties ? `<w:pPr>${properties}</w:pPr>` : ""}${text
    .split("\t")
    .map((part) => `<w:r><w:t xml:space="preserve">${xmlEscaped(part)}</w:t></w:r>`)
    .join("<w:r><w:tab/></w:r>")}</w:p>`;

/** A minimal Word document (the parts Word itself requires to open it) whose body holds these blocks. */
export function aDocx(blocks: DocxBlock[]): Buffer {
  const body = blocks
    .map((block) => {
      if (typeof block === "string") return docxParagraph(block);
      if ("heading" in block) return docxParagraph(block.text, `<w:pStyle w:val="Heading${block.heading}"/>`);
      if ("item" in block) return docxParagraph(block.item, `<w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>`);
      return `<w:tbl>${block.table.map((row) => `<w:tr>${row.map((cell) => `<w:tc>${docxParagraph(cell)}</w:tc>`).join("")}</w:tr>`).join("")}</w:tbl>`;
    })
    .join("");
  return Buffer.from(
    zipSync({
      "[Content_Types].xml": strToU8(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
      ),
      "_rels/.rels": strToU8(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
      ),
      "word/document.xml": strToU8(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:sectPr/></w:body></w:document>`,
      ),
    }),
  );
}

/** A minimal PowerPoint deck: each slide's text boxes, each a list of paragraphs. */
export function aPptx(slides: string[][]): Buffer {
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`,
    ),
    "ppt/presentation.xml": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"/>`),
  };
  slides.forEach((paragraphs, i) => {
    const text = paragraphs.map((p) => `<a:p><a:r><a:t>${xmlEscaped(p)}</a:t></a:r></a:p>`).join("");
    files[`ppt/slides/slide${i + 1}.xml`] = strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:bodyPr/>${text}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
    );
  });
  return Buffer.from(zipSync(files));
}
