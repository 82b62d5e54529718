/**
 * Library documents over HTTP against the local API, DynamoDB Local, the S3 stand-in, the local Step Functions runner
 * and LanceDB: upload (and the same bytes again), processing to `done` with text and chunks, list, update, URLs,
 * reprocess, delete (objects and vectors gone), and the library's counters through it all.
 */
import { describe, expect, it } from "vitest";
import { documentKeys } from "../../../shared/domain/libraries/documents.js";
import { vectorStore } from "../../../shared/engine/vectors/index.js";
import { documentBlobs } from "../../../shared/blobs/libraries.js";
import { embed } from "../../../shared/services/inference/embeddings.js";
import { useEmbeddedApi } from "../../support/api.js";
import { aDocx, aTextPdf, INVOICE_PNG, INVOICE_TEXT } from "../../support/documents.js";
import { librariesClient } from "../../support/libraries-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const client = librariesClient(api, tenant);
const docs = client.documents;

/** The chunks of a document the index holds, found by searching with its own text. */
async function indexed(workspace: string, libraryId: string, text: string) {
  const answer = await embed({ caller: tenant.caller, requestId: "t", route: "test" }, { model: "mistral-embed", input: [text], output_dtype: "float", encoding_format: "float" });
  if (answer.kind !== "answer") throw new Error("stream");
  const store = await vectorStore();
  return store.query({ workspace, libraryIds: [libraryId], vector: answer.body.data[0]!.embedding as number[], topK: 10 });
}

describe("POST /v1/libraries/{library_id}/documents, GET /v1/libraries/{library_id}/documents, GET /v1/libraries/{library_id}/documents/{document_id}, PATCH /v1/libraries/{library_id}/documents/{document_id}, PUT /v1/libraries/{library_id}/documents/{document_id}, DELETE /v1/libraries/{library_id}/documents/{document_id}, GET /v1/libraries/{library_id}/documents/{document_id}/status, GET /v1/libraries/{library_id}/documents/{document_id}/text_content, GET /v1/libraries/{library_id}/documents/{document_id}/signed-url, GET /v1/libraries/{library_id}/documents/{document_id}/extracted-text-signed-url, POST /v1/libraries/{library_id}/documents/{document_id}/reprocess", () => {
  it("uploads a PDF (201), processes it to done, answers its text, pages and URLs, and counts it on the library", async () => {
    const library = await client.created({ name: "Policies", chunk_size: 512 });
    const pdf = aTextPdf([[["Travel policy"], ["Trains are booked in second class."]], [["Expenses are filed within thirty days."]]]);

    const uploaded = await docs.upload(library.id, pdf, "policy.pdf");

    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ library_id: library.id, name: "policy.pdf", extension: "pdf", mime_type: "application/pdf", size: pdf.length, process_status: "todo", uploaded_by_id: tenant.caller.principal });
    const id = uploaded.body.id;
    const document = await docs.processed(library.id, id);
    expect(document).toMatchObject({ process_status: "done", processing_status: "done", number_of_pages: 2, process_error: null });
    expect(document.tokens_processing_total).toBeGreaterThan(0);
    expect((await docs.status(library.id, id)).body).toEqual({ document_id: id, process_status: "done", process_error: null, processing_status: "done" });
    expect((await docs.text(library.id, id)).body.text).toMatch(/Trains are booked in second class\.[\s\S]*Expenses are filed within thirty days\./);
    expect((await docs.text(library.id, id, { page_start: "1" })).body.text).not.toContain("Trains");
    expect((await client.get(library.id)).body).toMatchObject({ nb_documents: 1, total_size: pdf.length });

    const original = await fetch((await docs.url(library.id, id)).body);
    expect(Buffer.from(await original.arrayBuffer())).toEqual(pdf);
    const extracted = await (await fetch((await docs.textUrl(library.id, id)).body)).json();
    expect(extracted.pages).toHaveLength(2);

    const hits = await indexed(tenant.caller.workspace, library.id, "Trains are booked in second class.");
    expect(hits[0]).toMatchObject({ documentId: id, documentName: "policy.pdf" });
    expect(hits[0]!.text).toContain("Trains are booked");
  });

  it("answers 200 with the existing document for the same bytes, and reads DOCX and a scanned image", async () => {
    const library = await client.created({ name: "Mixed" });
    const docx = aDocx([{ heading: 1, text: "Onboarding" }, "Laptops are issued on the first day."]);
    const first = await docs.upload(library.id, docx, "onboarding.docx");
    const again = await docs.upload(library.id, docx, "copy.docx");
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const scan = await docs.upload(library.id, INVOICE_PNG, "invoice.png");
    expect(scan.status).toBe(201);

    expect(await docs.processed(library.id, first.body.id)).toMatchObject({ process_status: "done" });
    expect(await docs.processed(library.id, scan.body.id, 120_000)).toMatchObject({ process_status: "done" });
    expect((await docs.text(library.id, first.body.id)).body.text).toContain("Laptops are issued on the first day.");
    expect((await docs.text(library.id, scan.body.id)).body.text).toContain(INVOICE_TEXT);
    expect((await client.get(library.id)).body).toMatchObject({ nb_documents: 2, total_size: docx.length + INVOICE_PNG.length });

    const listed = await docs.list(library.id, { sort_by: "name", sort_order: "asc" });
    expect(listed.body.data.map((d: { name: string }) => d.name)).toEqual(["invoice.png", "onboarding.docx"]);
    expect(listed.body.pagination).toEqual({ total_items: 2, total_pages: 1, current_page: 0, page_size: 100, has_more: false });
    expect((await docs.list(library.id, { search: "INVOICE" })).body.data).toHaveLength(1);
  }, 180_000);

  it("refuses what it cannot read, an empty file and expires_at with 422, and unknown ids with 404", async () => {
    const library = await client.created({ name: "Strict" });
    const unknown = await docs.upload(library.id, Buffer.from([0, 1, 2, 3, 0xff, 0xfe]), "blob.bin");
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(["body", "file"]);
    expect((await docs.upload(library.id, Buffer.alloc(0), "empty.txt")).status).toBe(422);
    expect((await client.get(library.id)).body.nb_documents).toBe(0);

    const text = await docs.upload(library.id, Buffer.from("Plain notes."), "notes.txt");
    expect((await docs.update(library.id, text.body.id, { expires_at: "2030-01-01T00:00:00Z" })).status).toBe(422);
    expect((await docs.get(library.id, "00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await docs.get("00000000-0000-4000-8000-000000000000", text.body.id)).status).toBe(404);
    expect((await docs.get(library.id, "nope")).status).toBe(422);
  });

  it("renames and sets attributes (processed again), reprocesses, and deletes with its objects and vectors", async () => {
    const library = await client.created({ name: "Lifecycle" });
    const up = await docs.upload(library.id, Buffer.from("# Security\n\nBadges are worn at all times."), "security.md");
    const id = up.body.id;
    await docs.processed(library.id, id);

    const renamed = await docs.update(library.id, id, { name: "badges.md", attributes: { team: "facilities" } });
    expect(renamed.body).toMatchObject({ name: "badges.md", attributes: { team: "facilities" }, process_status: "todo" });
    await docs.processed(library.id, id);
    const hits = await indexed(tenant.caller.workspace, library.id, "Badges are worn at all times.");
    expect(hits[0]).toMatchObject({ documentId: id, documentName: "badges.md", attributes: { team: "facilities" } });
    expect((await docs.replace(library.id, id, { name: "badges-v2.md" })).body.name).toBe("badges-v2.md");
    await docs.processed(library.id, id);

    expect((await docs.reprocess(library.id, id)).status).toBe(204);
    expect(await docs.processed(library.id, id)).toMatchObject({ process_status: "done" });

    const record = (await docs.get(library.id, id)).body;
    expect((await docs.remove(library.id, id)).status).toBe(204);
    expect((await docs.get(library.id, id)).status).toBe(404);
    expect((await client.get(library.id)).body).toMatchObject({ nb_documents: 0, total_size: 0 });
    expect(await indexed(tenant.caller.workspace, library.id, "Badges are worn at all times.")).toEqual([]);
    expect(await documentBlobs.text(documentKeys({ workspace: tenant.caller.workspace, libraryId: library.id, id: record.id }).text)).toBeUndefined();
    expect((await docs.remove(library.id, id)).status).toBe(404);
  });

  it("keeps keys without libraries:write to reading, and removes every document's objects and vectors with the library", async () => {
    const { organization, workspace } = tenant.caller;
    const viewer = await newTenant({ organization, workspace, roles: ["user"] });
    const library = await client.created({ name: "Shared" });
    const up = await docs.upload(library.id, Buffer.from("Visitors sign in at the desk."), "visitors.txt");
    await docs.processed(library.id, up.body.id);
    const asViewer = librariesClient(api, viewer).documents;
    expect((await asViewer.get(library.id, up.body.id)).status).toBe(200);
    expect((await asViewer.upload(library.id, Buffer.from("x y z"), "x.txt")).status).toBe(403);
    expect((await asViewer.remove(library.id, up.body.id)).status).toBe(403);

    expect((await client.remove(library.id)).status).toBe(200);
    expect(await indexed(workspace, library.id, "Visitors sign in at the desk.")).toEqual([]);
    expect(await documentBlobs.text(documentKeys({ workspace, libraryId: library.id, id: up.body.id }).text)).toBeUndefined();
  });
});
