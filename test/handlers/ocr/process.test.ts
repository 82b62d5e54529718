import { Readable } from "node:stream";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { DetectDocumentTextCommand, TextractClient, type Block } from "@aws-sdk/client-textract";
import { mockClient } from "aws-sdk-client-mock";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/ocr/process.js";
import { pdfPageCount } from "../../../shared/domain/pdf-pages.js";
import { PROVIDERS_ENV } from "../../../shared/inference/registry.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, aJsonEvent, aModelEntry, aModelItem, invoke, usageRecordsWritten } from "../../support/builders.js";
import { aTextPdf, dataUrl, INVOICE_PNG } from "../../support/documents.js";
import { serveTables } from "../../support/fake-table.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3();
const textract = mockClient(TextractClient);
const caller = aCaller();

// The cloud catalog's OCR model (Textract) and the offline one, under names of their own.
const cloudOcr = aModelEntry({ id: "cloud-ocr", provider: "textract", upstream: "textract-detect-document-text", endpoints: ["ocr"], tokenizer: "tekken" });
const offlineOcr = aModelEntry({ id: "offline-ocr", provider: "offline", upstream: "offline-tesseract", endpoints: ["ocr"], tokenizer: "tekken" });
const chatOnly = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] });
const pdf = aTextPdf([[["Quarterly report"], ["Revenue grew", "in every region"]], [["Second page"]]]);
const pdfFile = aFile({ workspace: caller.workspace, filename: "report.pdf", bytes: pdf.length, mimetype: "application/pdf", purpose: "ocr", numLines: null });

beforeAll(() => {
  const providers = JSON.parse(process.env[PROVIDERS_ENV] ?? "{}") as Record<string, unknown>;
  process.env[PROVIDERS_ENV] = JSON.stringify({ ...providers, textract: { type: "amazon-textract", region: "us-east-1" } });
});

beforeEach(() => {
  serveTables(dynamo, { models: [aModelItem(cloudOcr), aModelItem(offlineOcr), aModelItem(chatOnly)], files: [aFileItem(pdfFile)] });
  textract.reset();
});

const ocr = (body: Record<string, unknown>, who = caller) => invoke(handler, aJsonEvent(body, { path: "/v1/ocr", resource: "/v1/ocr", caller: who }));
const line = (text: string, top: number, height = 0.05): Block => ({ BlockType: "LINE", Text: text, Geometry: { BoundingBox: { Top: top, Left: 0.1, Height: height, Width: 0.5 } } });

describe("POST /v1/ocr", () => {
  it("reads an image with Amazon Textract: its LINE blocks as markdown, paragraphs where the gap is wide, the PNG's size", async () => {
    textract.on(DetectDocumentTextCommand).resolves({
      Blocks: [{ BlockType: "PAGE" }, line("Invoice 4821", 0.1), { BlockType: "WORD", Text: "Invoice" }, line("Paid in full", 0.16), line("Thank you", 0.4)],
    });

    const response = await invoke(handler, aJsonEvent({ model: "cloud-ocr", document: { type: "image_url", image_url: dataUrl(INVOICE_PNG, "image/png") } }, { path: "/v1/ocr", resource: "/v1/ocr", caller }));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["x-inference-backend"]).toBe("amazon-textract");
    expect(response.json).toStrictEqual({
      pages: [{ index: 0, markdown: "Invoice 4821\nPaid in full\n\nThank you", images: [], dimensions: { dpi: 72, width: 640, height: 140 } }],
      model: "cloud-ocr",
      document_annotation: null,
      usage_info: { pages_processed: 1, doc_size_bytes: INVOICE_PNG.length },
    });
    expect(Buffer.from(textract.commandCalls(DetectDocumentTextCommand)[0]!.args[0].input.Document!.Bytes!)).toStrictEqual(INVOICE_PNG);
  });

  it("records the call in the usage log with no tokens (OCR is priced per page upstream)", async () => {
    textract.on(DetectDocumentTextCommand).resolves({ Blocks: [line("Hello", 0.1)] });

    await ocr({ model: "cloud-ocr", document: { image_url: { url: dataUrl(INVOICE_PNG, "image/png") } } });

    const records = usageRecordsWritten(dynamo).map((c) => c.args[0].input.Item);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ model: "cloud-ocr", route: "POST /v1/ocr", backend: "amazon-textract", status: 200, promptTokens: 0, completionTokens: 0, costMicros: 0 });
  });

  it("reads a PDF of several pages with Textract one single-page PDF per call, each page under its index", async () => {
    const sent: Uint8Array[] = [];
    textract.on(DetectDocumentTextCommand).callsFake((input: { Document: { Bytes: Uint8Array } }) => {
      sent.push(input.Document.Bytes);
      return { Blocks: [line(`page ${sent.length}`, 0.1)] };
    });

    const response = await ocr({ model: "cloud-ocr", document: { document_url: dataUrl(pdf, "application/pdf") } });

    expect(response.statusCode).toBe(200);
    expect(response.json.pages.map((p: { index: number }) => p.index)).toEqual([0, 1]);
    expect(response.json.usage_info).toMatchObject({ pages_processed: 2 });
    expect(sent).toHaveLength(2);
    for (const page of sent) expect(await pdfPageCount(page)).toBe(1);
  });

  it("reads only the pages selected, each under its own index", async () => {
    textract.on(DetectDocumentTextCommand).resolves({ Blocks: [line("Second page", 0.1)] });

    const response = await ocr({ model: "cloud-ocr", document: { document_url: dataUrl(pdf, "application/pdf") }, pages: [1] });

    expect(response.json.pages).toEqual([{ index: 1, markdown: "Second page", images: [], dimensions: null }]);
    expect(textract.commandCalls(DetectDocumentTextCommand)).toHaveLength(1);
  });

  it("answers 400 saying why when Textract cannot read a page, recorded as a failed call", async () => {
    textract.on(DetectDocumentTextCommand).rejects(Object.assign(new Error("Request has unsupported document format"), { name: "UnsupportedDocumentException" }));

    const response = await ocr({ model: "cloud-ocr", document: { document_url: dataUrl(pdf, "application/pdf") } });

    expect(response.statusCode).toBe(400);
    expect(response.json.message).toBe("Amazon Textract cannot read this document synchronously: it reads PNG, JPEG, TIFF and PDF pages");
    expect(usageRecordsWritten(dynamo).map((c) => c.args[0].input.Item.status)).toStrictEqual([400]);
  });

  it("refuses annotations on a provider that cannot make them, naming the fields, without calling Textract", async () => {
    const response = await ocr({
      model: "cloud-ocr",
      document: { image_url: dataUrl(INVOICE_PNG, "image/png") },
      document_annotation_format: { type: "json_schema", json_schema: { name: "invoice", schema: { type: "object" } } },
    });

    expect(response.statusCode).toBe(400);
    expect(response.json.message).toContain("OCR annotations (document_annotation_format)");
    expect(textract.commandCalls(DetectDocumentTextCommand)).toHaveLength(0);
  });

  it("reads a PDF's text layer offline, the pages selected only, at 200 dpi", async () => {
    const response = await ocr({ model: "offline-ocr", document: { type: "document_url", document_url: dataUrl(pdf, "application/pdf") }, pages: "1" });

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["x-inference-backend"]).toBe("offline");
    expect(response.json.pages).toStrictEqual([{ index: 1, markdown: "Second page", images: [], dimensions: { dpi: 200, width: 1700, height: 2200 } }]);
    expect(response.json.usage_info).toStrictEqual({ pages_processed: 1, doc_size_bytes: pdf.length });
  });

  it("reads a file of the workspace by its id, paragraphs and lines as the text layer has them", async () => {
    s3.on(GetObjectCommand, { Key: pdfFile.objectKey }).resolves({ Body: Readable.from([pdf]) as never });

    const response = await ocr({ model: "offline-ocr", document: { type: "file", file_id: pdfFile.id } });

    expect(response.statusCode).toBe(200);
    expect(response.json.pages.map((p: { index: number; markdown: string }) => [p.index, p.markdown])).toStrictEqual([
      [0, "Quarterly report\n\nRevenue grew\nin every region"],
      [1, "Second page"],
    ]);
  });

  it("answers 404 for a file id of another workspace, reading no object", async () => {
    const response = await ocr({ model: "offline-ocr", document: { type: "file", file_id: pdfFile.id } }, aCaller({ workspace: "ws-other" }));

    expect(response.statusCode).toBe(404);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it("picks the catalog's OCR model when model is null", async () => {
    serveTables(dynamo, { models: [aModelItem(chatOnly), aModelItem(offlineOcr)] });

    const response = await ocr({ model: null, document: { document_url: dataUrl(pdf, "application/pdf") }, pages: [0] });

    expect(response.statusCode).toBe(200);
    expect(response.json.model).toBe("offline-ocr");
  });

  it("answers 422 for a document chunk of an unknown type and for a field the OpenAPI does not have", async () => {
    const badType = await ocr({ model: "offline-ocr", document: { type: "audio_url", audio_url: "https://example.com/a.wav" } });
    const extra = await ocr({ model: "offline-ocr", document: { document_url: dataUrl(pdf, "application/pdf") }, language: "en" });

    expect(badType.statusCode).toBe(422);
    expect(badType.json.detail[0].loc).toStrictEqual(["body", "document"]);
    expect(extra.statusCode).toBe(422);
    expect(extra.json.detail).toContainEqual(expect.objectContaining({ loc: ["body", "language"], type: "extra_forbidden" }));
  });

  it("answers 422 on body.document for bytes that are neither a PDF nor an image", async () => {
    const response = await ocr({ model: "offline-ocr", document: { document_url: dataUrl(Buffer.from("just words"), "text/plain") } });

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "document"], msg: "The document is not one we can read; send PDF, PNG, JPEG, TIFF, GIF, BMP or WebP", type: "value_error" }]);
  });

  it("answers 422 on body.pages for a malformed selection and for a page the document does not have", async () => {
    const malformed = await ocr({ model: "offline-ocr", document: { document_url: dataUrl(pdf, "application/pdf") }, pages: "1-x" });
    const missing = await ocr({ model: "offline-ocr", document: { document_url: dataUrl(pdf, "application/pdf") }, pages: [0, 5] });

    expect(malformed.statusCode).toBe(422);
    expect(malformed.json.detail[0]).toMatchObject({ loc: ["body", "pages"] });
    expect(missing.statusCode).toBe(422);
    expect(missing.json.detail[0]).toStrictEqual({ loc: ["body", "pages"], msg: "The document has 2 pages (0 to 1); there is no page 5", type: "value_error" });
  });

  it("refuses a document_url on a private address without fetching it (the outbound guard)", async () => {
    const response = await ocr({ model: "cloud-ocr", document: { document_url: "http://10.0.0.8/scan.pdf" } });

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "document"]);
    expect(response.json.detail[0].msg).toContain("10.0.0.8 may not be fetched");
    expect(textract.commandCalls(DetectDocumentTextCommand)).toHaveLength(0);
  });

  it("answers 400 for a model that does not read documents", async () => {
    const response = await ocr({ model: "mistral-small-latest", document: { document_url: dataUrl(pdf, "application/pdf") } });

    expect(response.statusCode).toBe(400);
    expect(response.json.message).toBe("Model 'mistral-small-latest' does not support OCR (capability ocr)");
  });
});
