/**
 * OCR end to end on the embedded servers: HTTP client → local API → handler → the offline provider's real engines
 * (Tesseract on images and scans, the text layer of PDFs), with files in the local S3. Tesseract takes about a
 * second to start: the file shares one tenant, and the process one worker, ended after the last test.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeOcrEngine } from "../../../shared/inference/providers/offline-ocr.js";
import { registerFineTuned } from "../../../shared/services/models/catalog.js";
import { useEmbeddedApi } from "../../support/api.js";
import { json, useFakeUpstream } from "../../support/fake-upstream.js";
import { aScannedPdf, aTextPdf, dataUrl, INVOICE_PNG, INVOICE_TEXT } from "../../support/documents.js";
import { filesClient } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

const fake = useFakeUpstream();
const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const files = filesClient(api, tenant);
const ocr = (body: Record<string, unknown>) => files.request("POST", "/v1/ocr", { json: { model: "mistral-ocr-latest", ...body } });

/** A plain HTTP server on 127.0.0.1 (loopback is allowed locally) serving the PNG, and a redirect to the metadata address. */
let documents: Server;
let documentsUrl: string;
beforeAll(async () => {
  documents = createServer((req, res) => {
    if (req.url === "/invoice.png") res.writeHead(200, { "content-type": "image/png" }).end(INVOICE_PNG);
    else res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
  });
  await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
  documentsUrl = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
});
afterAll(async () => {
  documents.closeAllConnections();
  await new Promise((resolve) => documents.close(resolve));
  await closeOcrEngine();
});

describe("POST /v1/ocr", () => {
  it("reads the text of a PNG given as a data: URL with Tesseract, offline and labelled", async () => {
    const reply = await ocr({ document: { type: "image_url", image_url: dataUrl(INVOICE_PNG, "image/png") }, include_image_base64: true });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
    expect(reply.body).toStrictEqual({
      pages: [{ index: 0, markdown: INVOICE_TEXT, images: [], dimensions: { dpi: 72, width: 640, height: 140 } }],
      model: "mistral-ocr-latest",
      document_annotation: null,
      usage_info: { pages_processed: 1, doc_size_bytes: INVOICE_PNG.length },
    });
  });

  it("fetches an image_url under the outbound guard, and refuses one that redirects to the metadata address", async () => {
    const fetched = await ocr({ document: { image_url: { url: `${documentsUrl}/invoice.png` } } });
    const redirected = await ocr({ document: { image_url: `${documentsUrl}/elsewhere` } });

    expect(fetched.status).toBe(200);
    expect(fetched.body.pages[0].markdown).toBe(INVOICE_TEXT);
    expect(redirected.status).toBe(422);
    expect(redirected.body.detail[0]).toMatchObject({ loc: ["body", "document"], msg: expect.stringContaining("169.254.169.254 may not be fetched") });
  });

  it("reads an uploaded PDF by file id: the text layer of each page, and a scanned page through Tesseract", async () => {
    const pdf = aTextPdf([[["Annual report 2025"], ["Revenue grew in every region"]], [["Appendix"]]]);
    const text = await files.uploaded({ filename: "report.pdf", content: pdf, type: "application/pdf", purpose: "ocr" });
    const scan = await files.uploaded({ filename: "scan.pdf", content: aScannedPdf(), type: "application/pdf", purpose: "ocr" });

    const read = await ocr({ document: { type: "file", file_id: text.id } });
    const scanned = await ocr({ document: { file_id: scan.id } });

    expect(read.status).toBe(200);
    expect(read.body.pages.map((p: { markdown: string }) => p.markdown)).toStrictEqual(["Annual report 2025\n\nRevenue grew in every region", "Appendix"]);
    expect(read.body.pages[0].dimensions).toStrictEqual({ dpi: 200, width: 1700, height: 2200 });
    expect(read.body.usage_info).toStrictEqual({ pages_processed: 2, doc_size_bytes: pdf.length });
    expect(scanned.status).toBe(200);
    expect(scanned.body.pages[0].markdown).toBe(INVOICE_TEXT);
  });

  it("answers 404 for a file id no file of the workspace has, and for another workspace's file", async () => {
    const mine = await files.uploaded({ filename: "invoice.png", content: INVOICE_PNG, type: "image/png", purpose: "ocr" });
    const other = filesClient(api, await newTenant());

    const unknown = await ocr({ document: { type: "file", file_id: "5f0c4d3e-0000-4000-8000-000000000000" } });
    const foreign = await other.request("POST", "/v1/ocr", { json: { model: "mistral-ocr-latest", document: { type: "file", file_id: mine.id } } });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });

  it("answers 422 for a document type the OpenAPI does not have", async () => {
    const reply = await ocr({ document: { type: "video_url", video_url: `${documentsUrl}/invoice.png` } });

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0].loc).toStrictEqual(["body", "document"]);
  });

  it("forwards to an upstream that serves Mistral OCR: the document as a data: URL of the bytes we read, its pages as it answered", async () => {
    const model = `ft:mistral-ocr-latest:test:${randomUUID().slice(0, 8)}`;
    await registerFineTuned({ workspace: tenant.caller.workspace, id: model, root: "mistral-ocr-latest", provider: "upstream", upstream: "mistral-ocr-2512" });
    const page = { index: 0, markdown: "# Invoice", images: [], tables: [], hyperlinks: [], header: null, footer: null, dimensions: { dpi: 200, height: 389, width: 1778 } };
    fake.reply(json({ pages: [page], model: "mistral-ocr-2512", document_annotation: null, usage_info: { pages_processed: 1, doc_size_bytes: 1312 } }));

    const reply = await ocr({ model, document: { image_url: `${documentsUrl}/invoice.png` }, table_format: "html" });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("openai-compatible");
    expect(reply.body).toStrictEqual({ pages: [page], model, document_annotation: null, usage_info: { pages_processed: 1, doc_size_bytes: INVOICE_PNG.length } });
    const request = await fake.requestOfTest();
    expect(request.path).toBe("/v1/ocr");
    expect(request.body).toStrictEqual({
      model: "mistral-ocr-2512",
      document: { type: "image_url", image_url: dataUrl(INVOICE_PNG, "image/png") },
      table_format: "html",
      extract_header: false,
      extract_footer: false,
      include_blocks: true,
    });
  });

  it("answers 422 for a document_url on a private address, fetching nothing", async () => {
    const reply = await ocr({ document: { type: "document_url", document_url: "http://192.168.1.20/report.pdf" } });

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ["body", "document"], msg: expect.stringContaining("192.168.1.20 may not be fetched") });
  });
});
