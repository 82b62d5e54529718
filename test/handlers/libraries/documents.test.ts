import { randomUUID } from "node:crypto";
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as deleteDocument } from "../../../functions/libraries/delete-document.js";
import { handler as documentStatus } from "../../../functions/libraries/document-status.js";
import { handler as documentText } from "../../../functions/libraries/document-text.js";
import { handler as documentTextUrl } from "../../../functions/libraries/document-text-url.js";
import { handler as documentUrl } from "../../../functions/libraries/document-url.js";
import { handler as getDocument } from "../../../functions/libraries/get-document.js";
import { handler as listDocuments } from "../../../functions/libraries/list-documents.js";
import { handler as replaceDocument } from "../../../functions/libraries/replace-document.js";
import { handler as reprocessDocument } from "../../../functions/libraries/reprocess-document.js";
import { handler as updateDocument } from "../../../functions/libraries/update-document.js";
import { handler as uploadDocument } from "../../../functions/libraries/upload-document.js";
import { documentKeys, type DocumentRecord } from "../../../shared/domain/libraries/documents.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke, multipartEvent } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aDocument, aLibrary, documentBucket, documentIn, documentItems, headIn, libraryItems } from "../../support/library-items.js";

const executions = vi.hoisted(() => ({ startExecution: vi.fn(), stopExecution: vi.fn() }));
vi.mock("../../../shared/engine/executions.js", () => executions);
// The index is LanceDB in the tests' environment: deleting a document's vectors is checked as a call here.
const vectors = vi.hoisted(() => ({ engine: "lancedb", upsert: vi.fn(), query: vi.fn(), deleteDocument: vi.fn(), deleteLibrary: vi.fn() }));
vi.mock("../../../shared/engine/vectors/index.js", () => ({ vectorStore: async () => vectors, resetVectorStore: () => undefined }));

const dynamo = mockDynamo();
const s3 = mockS3();
const EXECUTION_ARN = "arn:aws:states:us-east-1:123456789012:execution:libraryIngestion:doc";
let tables: FakeTables;
let bucket: Map<string, Buffer>;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  bucket = documentBucket(s3);
  executions.startExecution.mockReset().mockResolvedValue(EXECUTION_ARN);
  vectors.deleteDocument.mockReset().mockResolvedValue(1);
});

const caller = aCaller();
/** A member of the same organization in another workspace, whom libraries are shared with. */
const colleague = aCaller({ organization: caller.organization });

const storedLibrary = (shares: Parameters<typeof libraryItems>[1] = [], overrides: Parameters<typeof aLibrary>[1] = {}) => {
  const library = aLibrary(caller, overrides);
  tables.put("libraries", ...libraryItems(library, shares));
  return library;
};
const storedDocument = (library: ReturnType<typeof aLibrary>, overrides: Partial<DocumentRecord> = {}, content = `Document ${randomUUID()}`) => {
  const document = aDocument(library, overrides, content);
  tables.put("libraries", ...documentItems(document));
  return document;
};
/** A processed document with its extracted text kept in the bucket. */
const processedDocument = (library: ReturnType<typeof aLibrary>, pages: string[], overrides: Partial<DocumentRecord> = {}) => {
  const document = storedDocument(library, { status: "done", numberOfPages: pages.length, lastProcessedAt: "2026-01-03T00:00:00.000Z", ...overrides });
  bucket.set(documentKeys(document).text, Buffer.from(JSON.stringify({ document_id: document.id, pages: pages.map((text, index) => ({ index, text })), ocr_model: null })));
  return document;
};

const documentsPath = (libraryId: string) => `/v1/libraries/${libraryId}/documents`;
const documentPath = (document: Pick<DocumentRecord, "libraryId" | "id">, tail = "") => `${documentsPath(document.libraryId)}/${document.id}${tail}`;
const params = (document: Pick<DocumentRecord, "libraryId" | "id">) => ({ library_id: document.libraryId, document_id: document.id });
const read = (document: Pick<DocumentRecord, "libraryId" | "id">, tail = "", who = caller, query: Record<string, string> = {}) =>
  anEvent({ path: documentPath(document, tail), pathParameters: params(document), query, caller: who });
const upload = (libraryId: string, file: { filename: string; content: string | Buffer; type?: string }, who = caller) =>
  multipartEvent({ file }, { path: documentsPath(libraryId), pathParameters: { library_id: libraryId }, caller: who });
const patch = (document: Pick<DocumentRecord, "libraryId" | "id">, body: unknown, method = "PATCH", who = caller) =>
  aJsonEvent(body, { method, path: documentPath(document), pathParameters: params(document), caller: who });
const del = (document: Pick<DocumentRecord, "libraryId" | "id">, who = caller) => anEvent({ method: "DELETE", path: documentPath(document), pathParameters: params(document), caller: who });
const reprocess = (document: Pick<DocumentRecord, "libraryId" | "id">, who = caller) => anEvent({ method: "POST", path: documentPath(document, "/reprocess"), pathParameters: params(document), caller: who });

const documentRows = (libraryId: string) => tables.items("libraries").filter((row) => String(row.pk).endsWith(`#LIB#${libraryId}`) && /^(DOC|HASH)#/.test(String(row.sk)));
const putKeys = () => s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input.Key);
const deletedKeys = () => s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key);

describe("POST /v1/libraries/{library_id}/documents", () => {
  const TEXT = "Trains are booked in second class.\n";

  it("answers 201 with the new document, todo, its bytes stored under the library's workspace", async () => {
    const library = storedLibrary();
    const response = await invoke(uploadDocument, upload(library.id, { filename: "policy.txt", content: TEXT, type: "text/plain" }));

    expect(response.statusCode).toBe(201);
    expect(response.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      library_id: library.id,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      mime_type: "text/plain",
      extension: "txt",
      size: Buffer.byteLength(TEXT),
      name: "policy.txt",
      summary: null,
      created_at: expect.stringMatching(/Z$/),
      last_processed_at: null,
      number_of_pages: null,
      process_status: "todo",
      process_error: null,
      uploaded_by_id: caller.principal,
      uploaded_by_type: "User",
      tokens_processing_main_content: 0,
      tokens_processing_summary: null,
      url: null,
      attributes: null,
      expires_at: null,
      processing_status: "todo",
      tokens_processing_total: 0,
    });
    const key = `workspaces/${caller.workspace}/libraries/${library.id}/documents/${response.json.id}/original`;
    expect(s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input)).toEqual([expect.objectContaining({ Key: key, ContentType: "text/plain" })]);
    expect(bucket.get(key)?.toString("utf8")).toBe(TEXT);
  });

  it("adds the DOC and HASH items and the head's counters in one transaction", async () => {
    const library = storedLibrary();
    const response = await invoke(uploadDocument, upload(library.id, { filename: "policy.txt", content: TEXT }));
    const id = response.json.id as string;
    const partition = `ORG#${caller.organization}#LIB#${library.id}`;

    const writes = dynamo.commandCalls(TransactWriteCommand);
    expect(writes).toHaveLength(1);
    const items = writes[0]!.args[0].input.TransactItems!;
    expect(items.map((t) => (t.Put ? { put: t.Put.Item!.sk } : { update: t.Update!.Key!.sk }))).toEqual([
      { update: "LIBRARY" },
      { put: `HASH#${response.json.hash}` },
      { put: `DOC#${id}` },
    ]);
    expect(items[0]!.Update!.ExpressionAttributeValues).toEqual({ ":one": 1, ":size": Buffer.byteLength(TEXT) });
    expect(documentIn(tables, { organization: caller.organization, libraryId: library.id, id })).toMatchObject({ pk: partition, status: "todo", generation: 1 });
    expect(headIn(tables, library)).toMatchObject({ nbDocuments: 1, totalSize: Buffer.byteLength(TEXT) });
  });

  it("starts the ingestion machine named <document id>-1 with the document's generation", async () => {
    const library = storedLibrary();
    const response = await invoke(uploadDocument, upload(library.id, { filename: "policy.txt", content: TEXT }));

    expect(executions.startExecution).toHaveBeenCalledTimes(1);
    expect(executions.startExecution).toHaveBeenCalledWith("libraryIngestion", `${response.json.id}-1`, {
      organization: caller.organization,
      libraryId: library.id,
      documentId: response.json.id,
      generation: 1,
    });
  });

  it("answers 200 with the library's document of the same bytes, deleting the object it just wrote", async () => {
    const library = storedLibrary();
    const existing = storedDocument(library, { name: "first.txt", status: "done" }, TEXT);

    const response = await invoke(uploadDocument, upload(library.id, { filename: "copy.txt", content: TEXT }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: existing.id, name: "first.txt", process_status: "done", hash: existing.hash });
    const [written] = putKeys();
    expect(written).toMatch(new RegExp(`^workspaces/${caller.workspace}/libraries/${library.id}/documents/[0-9a-f-]{36}/original$`));
    expect(written).not.toBe(documentKeys(existing).original);
    expect(deletedKeys()).toEqual([written]);
    expect(bucket.size).toBe(0);
    expect(documentRows(library.id)).toHaveLength(2);
    expect(headIn(tables, library)).toMatchObject({ nbDocuments: 0 });
    expect(executions.startExecution).not.toHaveBeenCalled();
  });

  it("answers 422 on body.file for bytes that are no document it can read, storing nothing", async () => {
    const library = storedLibrary();
    const response = await invoke(uploadDocument, upload(library.id, { filename: "blob.bin", content: Buffer.from([0x00, 0xff, 0x10, 0x00, 0x7f]) }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toEqual([expect.objectContaining({ loc: ["body", "file"], msg: expect.stringContaining("not a document we can read") })]);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(executions.startExecution).not.toHaveBeenCalled();
  });

  it("fails whole when the machine cannot be started: the record and the counters removed, the object deleted", async () => {
    const library = storedLibrary();
    executions.startExecution.mockRejectedValue(new Error("Step Functions is unavailable"));

    const response = await invoke(uploadDocument, upload(library.id, { filename: "policy.txt", content: TEXT }));

    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(response.body).not.toContain("Step Functions is unavailable");
    expect(documentRows(library.id)).toEqual([]);
    expect(headIn(tables, library)).toMatchObject({ nbDocuments: 0, totalSize: 0 });
    const [written] = putKeys();
    expect(deletedKeys()).toEqual([written]);
    expect(bucket.size).toBe(0);
  });

  it("answers 404 for a library the caller cannot see, and 403 to a Viewer, storing nothing", async () => {
    const hidden = aLibrary(colleague);
    const viewed = aLibrary(colleague);
    tables.put("libraries", ...libraryItems(hidden), ...libraryItems(viewed, [{ type: "Workspace", id: caller.workspace, role: "Viewer" }]));

    const notFound = await invoke(uploadDocument, upload(hidden.id, { filename: "policy.txt", content: TEXT }));
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json.code).toBe("library_not_found");
    const refused = await invoke(uploadDocument, upload(viewed.id, { filename: "policy.txt", content: TEXT }));
    expect(refused.statusCode).toBe(403);
    expect(refused.json.code).toBe("library_access_denied");
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(executions.startExecution).not.toHaveBeenCalled();
  });
});

describe("GET /v1/libraries/{library_id}/documents", () => {
  const list = (libraryId: string, query: Record<string, string> = {}, who = caller) => anEvent({ path: documentsPath(libraryId), pathParameters: { library_id: libraryId }, query, caller: who });

  it("answers the documents newest first with a pagination object counting them all", async () => {
    const library = storedLibrary();
    const older = storedDocument(library, { name: "b.txt", createdAt: "2026-01-02T00:00:00.000Z" });
    const newer = storedDocument(library, { name: "a.txt", createdAt: "2026-01-04T00:00:00.000Z" });
    const middle = storedDocument(library, { name: "c.txt", createdAt: "2026-01-03T00:00:00.000Z" });
    storedDocument(storedLibrary(), { name: "elsewhere.txt" });

    const response = await invoke(listDocuments, list(library.id));

    expect(response.statusCode).toBe(200);
    expect(response.json.pagination).toEqual({ total_items: 3, total_pages: 1, current_page: 0, page_size: 100, has_more: false });
    expect(response.json.data.map((d: { id: string }) => d.id)).toEqual([newer.id, middle.id, older.id]);
    expect(response.json.data[0]).toMatchObject({ library_id: library.id, name: "a.txt", process_status: "todo" });
  });

  it("sorts by the field asked, searches names and pages by number", async () => {
    const library = storedLibrary();
    for (const name of ["Delta.txt", "alpha.txt", "Charlie.md", "bravo.txt"]) storedDocument(library, { name });

    const byName = await invoke(listDocuments, list(library.id, { sort_by: "name", sort_order: "asc", page_size: "2", page: "1" }));
    expect(byName.json.data.map((d: { name: string }) => d.name)).toEqual(["Charlie.md", "Delta.txt"]);
    expect(byName.json.pagination).toEqual({ total_items: 4, total_pages: 2, current_page: 1, page_size: 2, has_more: false });
    const searched = await invoke(listDocuments, list(library.id, { search: "TXT", sort_by: "name", sort_order: "asc" }));
    expect(searched.json.data.map((d: { name: string }) => d.name)).toEqual(["alpha.txt", "bravo.txt", "Delta.txt"]);
    expect(searched.json.pagination.total_items).toBe(3);
  });

  it("answers 404 for a library the caller cannot see, and lists a Viewer's", async () => {
    const library = storedLibrary([{ type: "Workspace", id: colleague.workspace, role: "Viewer" }]);
    storedDocument(library);
    expect((await invoke(listDocuments, list(library.id, {}, aCaller({ organization: caller.organization })))).statusCode).toBe(404);
    const viewer = await invoke(listDocuments, list(library.id, {}, colleague));
    expect(viewer.statusCode).toBe(200);
    expect(viewer.json.pagination.total_items).toBe(1);
  });
});

describe("GET /v1/libraries/{library_id}/documents/{document_id}", () => {
  it("answers the document", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "done", numberOfPages: 2, tokensProcessed: 42, attributes: { team: "hr" } });

    const response = await invoke(getDocument, read(document));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: document.id, library_id: library.id, name: document.name, process_status: "done", number_of_pages: 2, tokens_processing_total: 42, attributes: { team: "hr" } });
  });

  it("answers 404 document_not_found for a document the library does not hold", async () => {
    const library = storedLibrary();
    const other = storedDocument(storedLibrary());

    const missing = await invoke(getDocument, read({ libraryId: library.id, id: randomUUID() }));
    expect(missing.statusCode).toBe(404);
    expect(missing.json).toMatchObject({ type: "not_found_error", code: "document_not_found" });
    // Another library's document is not found through this one.
    expect((await invoke(getDocument, read({ libraryId: library.id, id: other.id }))).json.code).toBe("document_not_found");
  });

  it("answers 404 library_not_found for a document of a library the caller cannot see", async () => {
    const document = storedDocument(storedLibrary());
    const response = await invoke(getDocument, read(document, "", colleague));
    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("library_not_found");
  });
});

describe("GET /v1/libraries/{library_id}/documents/{document_id}/status", () => {
  it("answers the document's id, status and error", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "error", processError: "The document is damaged" });

    const response = await invoke(documentStatus, read(document, "/status"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ document_id: document.id, process_status: "error", process_error: "The document is damaged", processing_status: "error" });
  });

  it("answers 404 for an unknown document", async () => {
    const library = storedLibrary();
    expect((await invoke(documentStatus, read({ libraryId: library.id, id: randomUUID() }, "/status"))).json.code).toBe("document_not_found");
  });
});

describe("GET /v1/libraries/{library_id}/documents/{document_id}/text_content", () => {
  it("answers the extracted text of the pages asked, pages joined by a blank line", async () => {
    const library = storedLibrary();
    const document = processedDocument(library, ["Page one.", "Page two.", "Page three."]);

    const all = await invoke(documentText, read(document, "/text_content"));
    expect(all.statusCode).toBe(200);
    expect(all.json).toEqual({ text: "Page one.\n\nPage two.\n\nPage three." });
    const some = await invoke(documentText, read(document, "/text_content", caller, { page_start: "1", page_end: "2" }));
    expect(some.json).toEqual({ text: "Page two." });
    expect(s3.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Key)).toEqual([documentKeys(document).text, documentKeys(document).text]);
  });

  it("answers 409 document_not_processed while the document is todo, without reading the bucket", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "todo" });

    const response = await invoke(documentText, read(document, "/text_content"));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ code: "document_not_processed", message: expect.stringContaining("todo") });
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });
});

describe("GET /v1/libraries/{library_id}/documents/{document_id}/signed-url", () => {
  it("answers a JSON string: a presigned GET of the original for 30 minutes, under the document's name", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { name: "Travel policy.txt" });

    const response = await invoke(documentUrl, read(document, "/signed-url"));

    expect(response.statusCode).toBe(200);
    expect(typeof response.json).toBe("string");
    const url = new URL(response.json);
    expect(url.pathname).toContain(documentKeys(document).original);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("1800");
    expect(url.searchParams.get("response-content-disposition")).toBe("inline; filename*=UTF-8''Travel%20policy.txt");
    expect(url.searchParams.get("response-content-type")).toBe("text/plain");
  });

  it("answers 404 to a caller who cannot see the library", async () => {
    const document = storedDocument(storedLibrary());
    expect((await invoke(documentUrl, read(document, "/signed-url", colleague))).statusCode).toBe(404);
  });
});

describe("GET /v1/libraries/{library_id}/documents/{document_id}/extracted-text-signed-url", () => {
  it("answers a JSON string: a presigned GET of the extracted text as JSON", async () => {
    const library = storedLibrary();
    const document = processedDocument(library, ["Only page."]);

    const response = await invoke(documentTextUrl, read(document, "/extracted-text-signed-url"));

    expect(response.statusCode).toBe(200);
    const url = new URL(response.json);
    expect(url.pathname).toContain(documentKeys(document).text);
    expect(url.searchParams.get("response-content-type")).toBe("application/json");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("1800");
  });

  it("answers 409 for a document not processed yet", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "in_progress" });
    const response = await invoke(documentTextUrl, read(document, "/extracted-text-signed-url"));
    expect(response.statusCode).toBe(409);
    expect(response.json.code).toBe("document_not_processed");
  });
});

describe("PATCH /v1/libraries/{library_id}/documents/{document_id}, PUT /v1/libraries/{library_id}/documents/{document_id}", () => {
  const requeues = () => dynamo.commandCalls(UpdateCommand).map((c) => c.args[0].input).filter((input) => input.ConditionExpression === "attribute_exists(pk) AND #generation = :generation" && Object.values(input.ExpressionAttributeValues ?? {}).includes("todo"));

  it("queues a processed document again when its attributes change: generation 2, todo, a new execution", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "done", lastProcessedAt: "2026-01-03T00:00:00.000Z" });

    const response = await invoke(updateDocument, patch(document, { attributes: { team: "hr", year: 2026 } }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: document.id, attributes: { team: "hr", year: 2026 }, process_status: "todo", process_error: null });
    expect(requeues()).toEqual([expect.objectContaining({ ExpressionAttributeValues: expect.objectContaining({ ":generation": 1 }) })]);
    expect(documentIn(tables, document)).toMatchObject({ generation: 2, status: "todo", attributes: { team: "hr", year: 2026 }, uploadedById: caller.principal });
    expect(executions.startExecution).toHaveBeenCalledWith("libraryIngestion", `${document.id}-2`, { organization: caller.organization, libraryId: library.id, documentId: document.id, generation: 2 });
  });

  it("the deprecated PUT renames and queues the same way", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "done" });

    const response = await invoke(replaceDocument, patch(document, { name: "renamed.txt" }, "PUT"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ name: "renamed.txt", process_status: "todo" });
    expect(documentIn(tables, document)).toMatchObject({ name: "renamed.txt", generation: 2 });
    expect(executions.startExecution).toHaveBeenCalledWith("libraryIngestion", `${document.id}-2`, expect.objectContaining({ generation: 2 }));
  });

  it("does not queue a document that is still waiting, nor one whose name and attributes stay the same", async () => {
    const library = storedLibrary();
    const waiting = storedDocument(library, { status: "todo" });
    const done = storedDocument(library, { status: "done", name: "same.txt" });

    expect((await invoke(updateDocument, patch(waiting, { name: "new.txt" }))).json).toMatchObject({ name: "new.txt", process_status: "todo" });
    expect((await invoke(updateDocument, patch(done, { name: "same.txt" }))).json).toMatchObject({ process_status: "done" });
    expect(requeues()).toEqual([]);
    expect(documentIn(tables, waiting)).toMatchObject({ generation: 1 });
    expect(executions.startExecution).not.toHaveBeenCalled();
  });

  it("answers 422 on body.expires_at, changing nothing", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "done" });

    const response = await invoke(updateDocument, patch(document, { name: "x.txt", expires_at: "2030-01-01T00:00:00Z" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["body", "expires_at"]);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(documentIn(tables, document)).toMatchObject({ name: document.name });
  });

  it("answers 404 for an unknown document and 403 to a Viewer", async () => {
    const library = storedLibrary([{ type: "Workspace", id: colleague.workspace, role: "Viewer" }]);
    const document = storedDocument(library, { status: "done" });
    expect((await invoke(updateDocument, patch({ libraryId: library.id, id: randomUUID() }, { name: "x.txt" }))).json.code).toBe("document_not_found");
    const refused = await invoke(updateDocument, patch(document, { name: "x.txt" }, "PATCH", colleague));
    expect(refused.statusCode).toBe(403);
    expect(documentIn(tables, document)).toMatchObject({ name: document.name });
  });
});

describe("POST /v1/libraries/{library_id}/documents/{document_id}/reprocess", () => {
  it("answers 204 and queues the next generation as the caller", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "error", processError: "damaged", uploadedById: randomUUID() });

    const response = await invoke(reprocessDocument, reprocess(document));

    expect(response.statusCode).toBe(204);
    expect(response.body).toBeFalsy();
    const [requeue] = dynamo.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(requeue).toMatchObject({ ConditionExpression: "attribute_exists(pk) AND #generation = :generation", ExpressionAttributeValues: expect.objectContaining({ ":generation": 1, ":v0": "todo", ":v2": 2 }) });
    expect(documentIn(tables, document)).toMatchObject({ generation: 2, status: "todo", processError: null, uploadedById: caller.principal, uploadedFrom: caller.workspace });
    expect(executions.startExecution).toHaveBeenCalledWith("libraryIngestion", `${document.id}-2`, { organization: caller.organization, libraryId: library.id, documentId: document.id, generation: 2 });
  });

  it("answers 403 to a Viewer, queuing nothing", async () => {
    const library = storedLibrary([{ type: "Workspace", id: colleague.workspace, role: "Viewer" }]);
    const document = storedDocument(library, { status: "done" });

    const response = await invoke(reprocessDocument, reprocess(document, colleague));

    expect(response.statusCode).toBe(403);
    expect(response.json.code).toBe("library_access_denied");
    expect(documentIn(tables, document)).toMatchObject({ generation: 1 });
    expect(executions.startExecution).not.toHaveBeenCalled();
  });

  it("marks the document error when the machine cannot be started", async () => {
    const library = storedLibrary();
    const document = storedDocument(library, { status: "done" });
    executions.startExecution.mockRejectedValue(new Error("throttled"));

    const response = await invoke(reprocessDocument, reprocess(document));

    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(documentIn(tables, document)).toMatchObject({ generation: 2, status: "error", processError: "Processing could not be queued; reprocess the document" });
  });
});

describe("DELETE /v1/libraries/{library_id}/documents/{document_id}", () => {
  it("answers 204 after removing DOC and HASH and the head's share in one transaction, then the objects and the vectors", async () => {
    const library = storedLibrary([], { nbDocuments: 2, totalSize: 100 });
    const document = processedDocument(library, ["Text."], { size: 40 });
    const kept = storedDocument(library);
    bucket.set(documentKeys(document).original, Buffer.from("original"));

    const response = await invoke(deleteDocument, del(document));

    expect(response.statusCode).toBe(204);
    const [write] = dynamo.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
    const partition = `ORG#${caller.organization}#LIB#${library.id}`;
    expect(write!.map((t) => (t.Delete ? { delete: t.Delete.Key } : { update: t.Update!.Key }))).toEqual([
      { delete: { pk: partition, sk: `DOC#${document.id}` } },
      { delete: { pk: partition, sk: `HASH#${document.hash}` } },
      { update: { pk: partition, sk: "LIBRARY" } },
    ]);
    expect(write![2]!.Update!.ExpressionAttributeValues).toEqual({ ":minusOne": -1, ":minusSize": -40 });
    expect(headIn(tables, library)).toMatchObject({ nbDocuments: 1, totalSize: 60 });
    expect(documentRows(library.id).map((row) => row.sk).sort()).toEqual([`DOC#${kept.id}`, `HASH#${kept.hash}`].sort());
    expect(deletedKeys().sort()).toEqual([documentKeys(document).original, documentKeys(document).text].sort());
    expect(bucket.size).toBe(0);
    expect(vectors.deleteDocument).toHaveBeenCalledExactlyOnceWith(caller.workspace, library.id, document.id);
  });

  it("answers 404 for an unknown document, deleting nothing", async () => {
    const library = storedLibrary();
    const response = await invoke(deleteDocument, del({ libraryId: library.id, id: randomUUID() }));
    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("document_not_found");
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(0);
    expect(vectors.deleteDocument).not.toHaveBeenCalled();
  });

  it("answers 403 to a Viewer and 404 to a caller who cannot see the library, deleting nothing", async () => {
    const library = storedLibrary([{ type: "Workspace", id: colleague.workspace, role: "Viewer" }]);
    const document = storedDocument(library);

    const refused = await invoke(deleteDocument, del(document, colleague));
    expect(refused.statusCode).toBe(403);
    expect(refused.json.code).toBe("library_access_denied");
    expect((await invoke(deleteDocument, del(document, aCaller({ organization: caller.organization })))).statusCode).toBe(404);
    expect(documentIn(tables, document)).toBeDefined();
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(0);
    expect(vectors.deleteDocument).not.toHaveBeenCalled();
  });
});
