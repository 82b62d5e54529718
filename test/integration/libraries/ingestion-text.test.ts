/**
 * Ingestion's first stages against the embedded catalog and the offline engines: a document's text by its format
 * (OCR for PDFs and images), and its chunks' vectors, each call in the workspace's usage.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chunkPages } from "../../../shared/domain/libraries/text/chunks.js";
import { documentText, DocumentUnreadable } from "../../../shared/services/libraries/ingestion/text.js";
import { chunkVectors, embeddingModel } from "../../../shared/services/libraries/ingestion/vectors.js";
import type { CallContext } from "../../../shared/services/inference/usage.js";
import { useEmbeddedApi } from "../../support/api.js";
import { aDocx, aPptx, aScannedPdf, aTextPdf, INVOICE_PNG, INVOICE_TEXT } from "../../support/documents.js";
import { usageRecordsOf } from "../../support/inference-client.js";

const { tenant } = useEmbeddedApi();
const contextOf = (): CallContext => ({ caller: tenant.caller, requestId: randomUUID(), route: "library ingestion" });

describe("documentText", () => {
  it("reads a PDF's text layer page by page through the catalog's OCR model, and says which model read it", async () => {
    const ctx = contextOf();

    const text = await documentText(ctx, aTextPdf([[["Refunds take 14 days"]], [["Shipping is free"]]]), "policy.pdf");

    expect(text).toEqual({ format: "pdf", mimeType: "application/pdf", pages: ["Refunds take 14 days", "Shipping is free"], ocrModel: "mistral-ocr-latest" });
    expect(await usageRecordsOf(tenant.caller.workspace, ctx.requestId)).toEqual([expect.objectContaining({ model: "mistral-ocr-latest", route: "library ingestion", status: 200 })]);
  });

  it("reads a scan and an image with Tesseract", async () => {
    const [scan, image] = await Promise.all([documentText(contextOf(), aScannedPdf(), "scan.pdf"), documentText(contextOf(), INVOICE_PNG, "invoice.png")]);

    expect(scan.pages).toEqual([INVOICE_TEXT]);
    expect(image).toMatchObject({ format: "image", mimeType: "image/png", pages: [INVOICE_TEXT] });
  });

  it("reads DOCX, PPTX, HTML and Markdown without OCR", async () => {
    const ctx = contextOf();
    const read = (bytes: Buffer, name: string) => documentText(ctx, bytes, name);

    expect(await read(aDocx([{ heading: 2, text: "Warranty" }, "Two years."]), "w.docx")).toMatchObject({ format: "docx", pages: ["## Warranty\n\nTwo years."] });
    expect((await read(aPptx([["One"], ["Two"]]), "deck.pptx")).pages).toEqual(["One", "Two"]);
    expect((await read(Buffer.from("<html><body><p>Hi there</p></body></html>"), "p.html")).pages).toEqual(["Hi there"]);
    expect(await read(Buffer.from("# Notes\n\ntext"), "notes.md")).toMatchObject({ format: "markdown", pages: ["# Notes\n\ntext"] });
    // No model was called: nothing to wait for beyond a moment.
    expect(await usageRecordsOf(tenant.caller.workspace, ctx.requestId, 200)).toEqual([]);
  });

  it("says why a document cannot be read: a format it is not, a damaged Office file, a damaged PDF", async () => {
    const ctx = contextOf();

    await expect(documentText(ctx, Buffer.from([0, 1, 2, 3]), "blob.bin")).rejects.toBeInstanceOf(DocumentUnreadable);
    await expect(documentText(ctx, Buffer.from([0, 1, 2, 3]), "blob.bin")).rejects.toThrow(/not one we can read; upload PDF, DOCX/);
    const damaged = aDocx(["x"]).subarray(0, 200);
    await expect(documentText(ctx, Buffer.concat([damaged, Buffer.alloc(10)]), "broken.docx")).rejects.toBeInstanceOf(DocumentUnreadable);
    await expect(documentText(ctx, Buffer.from("%PDF-1.4\nnot really"), "broken.pdf")).rejects.toBeInstanceOf(DocumentUnreadable);
  });
});

describe("chunkVectors", () => {
  it("embeds every chunk with the catalog's embedding model, in order, counted in usage", async () => {
    const ctx = contextOf();
    const chunks = chunkPages(["alpha ".repeat(400), "beta ".repeat(400)], 512);
    const model = await embeddingModel(ctx);

    const { vectors, tokens } = await chunkVectors(ctx, model, chunks);

    expect(model).toBe("mistral-embed");
    expect(vectors).toHaveLength(chunks.length);
    expect(vectors[0]).toHaveLength(1024);
    expect(vectors[0]).not.toEqual(vectors.at(-1));
    const [usage] = await usageRecordsOf(tenant.caller.workspace, ctx.requestId);
    expect(usage).toMatchObject({ model: "mistral-embed", status: 200 });
    expect(usage!.promptTokens).toBeGreaterThan(chunks.length);
    expect(tokens).toBe(usage!.promptTokens);
  });
});
