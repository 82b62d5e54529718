import fc from "fast-check";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { chunkPages, DEFAULT_CHUNK_SIZE, overlapFor } from "../../../../shared/domain/libraries/text/chunks.js";
import { extractText } from "../../../../shared/domain/libraries/text/extract.js";
import { documentFormat } from "../../../../shared/domain/libraries/text/formats.js";
import { MAX_INFLATED_BYTES, ZipTooLarge } from "../../../../shared/domain/libraries/text/zip.js";
import { aDocx, aPptx, aScannedPdf, aTextPdf, INVOICE_PNG } from "../../../support/documents.js";

describe("documentFormat", () => {
  it("judges PDFs, images, DOCX and PPTX by their bytes, whatever their name says", () => {
    expect(documentFormat(aTextPdf([[["x"]]]), "notes.txt")?.format).toBe("pdf");
    expect(documentFormat(aScannedPdf(), "scan.pdf")?.format).toBe("pdf");
    expect(documentFormat(INVOICE_PNG, "invoice.docx")).toEqual({ format: "image", mimeType: "image/png" });
    expect(documentFormat(aDocx(["Hello"]), "a.pdf")?.format).toBe("docx");
    expect(documentFormat(aPptx([["Hello"]]), "a.bin")?.format).toBe("pptx");
  });

  it("tells HTML by its name or its start, Markdown by its name, and takes other UTF-8 as text", () => {
    expect(documentFormat(Buffer.from("<!DOCTYPE html><p>hi</p>"), "page")?.format).toBe("html");
    expect(documentFormat(Buffer.from("<p>hi</p>"), "page.htm")?.format).toBe("html");
    expect(documentFormat(Buffer.from("# Title"), "README.md")?.format).toBe("markdown");
    expect(documentFormat(Buffer.from("# Title"), "notes.txt")?.format).toBe("text");
  });

  it("reads none of binary bytes, invalid UTF-8, or a ZIP that is neither Word nor PowerPoint", () => {
    expect(documentFormat(Buffer.from([0x00, 0x01, 0x02, 0x03]), "a.txt")).toBeUndefined();
    expect(documentFormat(Buffer.from([0xc3, 0x28, 0x41]), "a.txt")).toBeUndefined();
    expect(documentFormat(Buffer.from(zipSync({ "xl/workbook.xml": strToU8("<x/>") })), "a.xlsx")).toBeUndefined();
    expect(documentFormat(Buffer.from("PK\u0003\u0004 not really a zip"), "a.docx")).toBeUndefined();
  });
});

describe("extractText", () => {
  it("reads a DOCX body as Markdown-ish paragraphs: headings, list items, tables, tabs, escaped characters", () => {
    const docx = aDocx([{ heading: 1, text: "Refund policy" }, "Refunds take 14 days & need a <receipt>.", { item: "Keep the box" }, { table: [["Plan", "Days"], ["Pro", "30"]] }, "a\tb"]);

    expect(extractText("docx", docx)).toEqual(["# Refund policy\n\nRefunds take 14 days & need a <receipt>.\n\n- Keep the box\n\n| Plan | Days |\n\n| Pro | 30 |\n\na\tb"]);
  });

  it("reads a PPTX a page a slide, in the slides' numbered order (10 after 9)", () => {
    const slides = Array.from({ length: 11 }, (_, i) => [`Slide ${i + 1}`, `Point ${i + 1}`]);

    const pages = extractText("pptx", aPptx(slides));

    expect(pages).toHaveLength(11);
    expect(pages[9]).toBe("Slide 10\n\nPoint 10");
    expect(pages[10]).toBe("Slide 11\n\nPoint 11");
  });

  it("reads HTML's text without scripts, styles, images or link targets", () => {
    const html = `<html><head><style>p{color:red}</style><script>alert("x")</script></head><body><h1>Opening hours</h1><p>We open at <a href="https://x.test/">nine</a>.</p><img src="a.png" alt="logo"></body></html>`;

    const [text] = extractText("html", Buffer.from(html));

    expect(text).toBe("Opening hours\n\nWe open at nine.");
  });

  it("reads Markdown and text as they are, line ends made \\n and a BOM dropped", () => {
    expect(extractText("markdown", Buffer.from("\uFEFF# T\r\n\r\nbody\r\n"))).toEqual(["# T\n\nbody"]);
  });

  it("refuses an Office file that declares more content than the limit, before inflating it", () => {
    const bomb = Buffer.from(zipSync({ "[Content_Types].xml": strToU8("<x/>"), "word/document.xml": strToU8("<w:document/>") }));
    // The central directory's uncompressed size (offset 24 of each entry) is what a reader allocates by: make it lie.
    const entry = bomb.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bomb.writeUInt32LE(MAX_INFLATED_BYTES + 1, entry + 24);

    expect(() => extractText("docx", bomb)).toThrow(ZipTooLarge);
    expect(extractText("docx", aDocx(["fine"]))).toEqual(["fine"]);
  });
});

describe("chunkPages", () => {
  it("packs paragraphs into chunks of at most the size, never across pages, each naming its page", () => {
    const paragraph = (n: number) => `Paragraph ${n} ${"word ".repeat(60).trim()}.`;
    const pages = [Array.from({ length: 12 }, (_, i) => paragraph(i)).join("\n\n"), "Short last page."];

    const chunks = chunkPages(pages, 1024);

    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    expect(chunks.at(-1)).toEqual({ index: chunks.length - 1, page: 1, text: "Short last page." });
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(1024);
    expect(chunks.filter((c) => c.page === 0).map((c) => c.text).join(" ")).toContain(paragraph(11));
  });

  it("repeats the end of the chunk before at the start of the next", () => {
    const text = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(" ");

    const [first, second] = chunkPages([text], 256);

    const repeated = second!.text.slice(0, second!.text.indexOf(" Sentence number", 1));
    expect(first!.text.endsWith(repeated.split(" ").slice(-3).join(" "))).toBe(true);
  });

  it("loses no word and keeps every chunk within its size, whatever the text (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", ".", "é") , maxLength: 3000 }), { minLength: 1, maxLength: 3 }), fc.integer({ min: 256, max: 1024 }), (pages, size) => {
        const chunks = chunkPages(pages, size);
        for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(size);
        pages.forEach((page, p) => {
          const joined = chunks.filter((c) => c.page === p).map((c) => c.text).join(" ");
          for (const word of page.split(/\s+/).filter(Boolean)) expect(joined).toContain(word.slice(0, size - overlapFor(size) - 1));
        });
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a size outside Mistral's 256..32768", () => {
    expect(() => chunkPages(["x"], 255)).toThrow(RangeError);
    expect(chunkPages(["x"])).toEqual([{ index: 0, page: 0, text: "x" }]);
    expect(DEFAULT_CHUNK_SIZE).toBe(2048);
  });
});
