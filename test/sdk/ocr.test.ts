/**
 * OCR through the official, unmodified SDK (`client.ocr.process`) against the local server: the answer parses into
 * the SDK's OCRResponse, from a PNG (Tesseract, offline) and from a PDF uploaded with `client.files.upload`.
 */
import { Mistral } from "@mistralai/mistralai";
import { HTTPValidationError } from "@mistralai/mistralai/models/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeOcrEngine } from "../../shared/inference/providers/offline-ocr.js";
import { useEmbeddedApi } from "../support/api.js";
import { aTextPdf, dataUrl, INVOICE_PNG, INVOICE_TEXT } from "../support/documents.js";
import { errorOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  // Tesseract's first page in a process includes its start (about a second).
  client = sdkClient(api, tenant.key, { timeoutMs: 30_000 });
});
afterAll(() => closeOcrEngine());

describe("client.ocr: POST /v1/ocr", () => {
  it("process reads a PNG image URL into pages with markdown, dimensions and usage", async () => {
    const answer = await client.ocr.process({ model: "mistral-ocr-latest", document: { type: "image_url", imageUrl: dataUrl(INVOICE_PNG, "image/png") } });

    expect(answer).toStrictEqual({
      pages: [{ index: 0, markdown: INVOICE_TEXT, images: [], dimensions: { dpi: 72, width: 640, height: 140 } }],
      model: "mistral-ocr-latest",
      documentAnnotation: null,
      usageInfo: { pagesProcessed: 1, docSizeBytes: INVOICE_PNG.length },
    });
  });

  it("process reads an uploaded PDF by file id, the pages asked for", async () => {
    const pdf = aTextPdf([[["Cover"]], [["Terms and conditions"]], [["Signatures"]]]);
    const file = await client.files.upload({ file: { fileName: "contract.pdf", content: new Uint8Array(pdf) }, purpose: "ocr" });

    const answer = await client.ocr.process({ model: "mistral-ocr-latest", document: { type: "file", fileId: file.id }, pages: [1, 2] });

    expect(answer.pages.map((page) => [page.index, page.markdown])).toStrictEqual([
      [1, "Terms and conditions"],
      [2, "Signatures"],
    ]);
    expect(answer.usageInfo).toStrictEqual({ pagesProcessed: 2, docSizeBytes: pdf.length });
  });

  it("surfaces a refused document (a private address) as the SDK's HTTPValidationError, with its detail", async () => {
    const error = await errorOf(client.ocr.process({ model: "mistral-ocr-latest", document: { type: "document_url", documentUrl: "http://10.1.2.3/doc.pdf" } }), HTTPValidationError);

    expect(error.statusCode).toBe(422);
    expect(error.detail?.[0]?.loc).toStrictEqual(["body", "document"]);
  });
});
