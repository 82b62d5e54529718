import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { PutCommand, UpdateCommand, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as recordFailure } from "../../../functions/engine/library-ingestion-record-failure.js";
import { handler as run } from "../../../functions/engine/library-ingestion-run.js";
import { documentKeys, type DocumentRecord } from "../../../shared/domain/libraries/documents.js";
import type { LibraryIngestionInput } from "../../../shared/engine/library-ingestion-machine.js";
import { hashEmbedding } from "../../../shared/inference/feature-hashing.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aContext, aModelEntry, aModelItem } from "../../support/builders.js";
import { physicalName, serveTables, type FakeTables } from "../../support/fake-table.js";
import { aDocument, aLibrary, documentBucket, documentIn, documentItems, libraryItems } from "../../support/library-items.js";

// The index is LanceDB in the tests' environment: the run's writes to it are checked as calls here.
const vectors = vi.hoisted(() => ({ engine: "lancedb", upsert: vi.fn(), query: vi.fn(), deleteDocument: vi.fn(), deleteLibrary: vi.fn() }));
vi.mock("../../../shared/engine/vectors/index.js", () => ({ vectorStore: async () => vectors, resetVectorStore: () => undefined }));

const dynamo = mockDynamo();
const s3 = mockS3();
/** The catalog's embedding model, answered by the offline provider (feature hashing, 1024 dimensions). */
const embedModel = aModelEntry({ id: "mistral-embed", endpoints: ["embeddings"], upstream: "offline-hash-embed", tokenizer: "v1", maxContextLength: 8192, dimensions: [1024] });
const TEXT = "Trains are booked in second class. Expenses are filed within thirty days.";

let tables: FakeTables;
let bucket: Map<string, Buffer>;
beforeEach(() => {
  tables = serveTables(dynamo, { models: [aModelItem(embedModel)] }, { writes: true });
  bucket = documentBucket(s3);
  vectors.upsert.mockReset().mockResolvedValue(undefined);
  vectors.deleteDocument.mockReset().mockResolvedValue(0);
});

const uploader = aCaller();
/** A library of the uploader's workspace holding one document whose original bytes are `content`. */
function queued(content: string | Buffer = TEXT, overrides: Partial<DocumentRecord> = {}) {
  const library = aLibrary(uploader);
  const document = aDocument(library, { uploadedById: uploader.principal, ...overrides }, content.toString());
  tables.put("libraries", ...libraryItems(library), ...documentItems(document));
  bucket.set(documentKeys(document).original, Buffer.from(content));
  const input: LibraryIngestionInput = { organization: document.organization, libraryId: document.libraryId, documentId: document.id, generation: 1 };
  return { library, document, input };
}

/** Updates of documents' items (the embedding calls also count usage in other tables, and the run marks the library's head). */
const updates = () =>
  dynamo
    .commandCalls(UpdateCommand)
    .map((c) => c.args[0].input)
    .filter((input) => input.TableName === physicalName("libraries") && String(input.Key?.sk).startsWith("DOC#"));
/** The value an update sets `field` to (setFields names attributes and values its own way). */
function setTo(input: UpdateCommandInput, field: string): unknown {
  const name = Object.entries(input.ExpressionAttributeNames ?? {}).find(([, n]) => n === field)?.[0];
  const assignment = name ? new RegExp(`${name} = (:\\w+)`).exec(input.UpdateExpression ?? "") : null;
  return assignment ? input.ExpressionAttributeValues![assignment[1]!] : undefined;
}

describe("library ingestion Run task", () => {
  it("moves a todo document to in_progress, then to done with its text kept, its chunks embedded and indexed", async () => {
    const { document, input } = queued();

    expect(await run(input, aContext())).toEqual({ status: "done" });

    const [started, finished] = updates();
    expect(updates()).toHaveLength(2);
    expect(setTo(started!, "status")).toBe("in_progress");
    expect(started).toMatchObject({ ConditionExpression: "attribute_exists(pk) AND #generation = :generation", ExpressionAttributeValues: expect.objectContaining({ ":generation": 1 }) });
    expect(setTo(finished!, "status")).toBe("done");
    expect(finished!.ExpressionAttributeValues).toMatchObject({ ":generation": 1 });

    const keys = documentKeys(document);
    expect(s3.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Key)).toEqual([keys.original]);
    expect(s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input)).toEqual([expect.objectContaining({ Key: keys.text, ContentType: "application/json" })]);
    expect(JSON.parse(bucket.get(keys.text)!.toString("utf8"))).toEqual({ document_id: document.id, pages: [{ index: 0, text: TEXT }], ocr_model: null });

    expect(vectors.deleteDocument).toHaveBeenCalledExactlyOnceWith(document.workspace, document.libraryId, document.id);
    expect(vectors.upsert).toHaveBeenCalledTimes(1);
    const [workspace, libraryId, chunks] = vectors.upsert.mock.calls[0]!;
    expect([workspace, libraryId]).toEqual([document.workspace, document.libraryId]);
    expect(chunks).toEqual([
      {
        documentId: document.id,
        chunkIndex: 0,
        text: TEXT,
        documentName: document.name,
        mimeType: "text/plain",
        createdAt: Math.floor(Date.parse(document.createdAt) / 1000),
        attributes: undefined,
        vector: hashEmbedding(TEXT, 1024),
      },
    ]);
    // The old chunks go before the new ones are written.
    expect(vectors.deleteDocument.mock.invocationCallOrder[0]).toBeLessThan(vectors.upsert.mock.invocationCallOrder[0]!);

    expect(documentIn(tables, document)).toMatchObject({
      status: "done",
      processError: null,
      generation: 1,
      numberOfPages: 1,
      chunks: 1,
      embeddingModel: "mistral-embed",
      tokensProcessed: expect.any(Number),
      lastProcessedAt: expect.stringMatching(/Z$/),
    });
    expect(documentIn(tables, document)!.tokensProcessed).toBeGreaterThan(0);
  });

  it("counts the embedding calls in the uploader's usage", async () => {
    const { input } = queued();

    await run(input, aContext());

    const usage = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input.Item!);
    expect(usage).toEqual([expect.objectContaining({ workspace: uploader.workspace, principal: uploader.principal, route: "library ingestion", model: "mistral-embed" })]);
  });

  it("writes nothing for a stale generation", async () => {
    const { document, input } = queued(TEXT, { generation: 2 });

    expect(await run(input, aContext())).toBeNull();

    expect(updates()).toEqual([]);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(vectors.upsert).not.toHaveBeenCalled();
    expect(documentIn(tables, document)).toMatchObject({ status: "todo", generation: 2 });
  });

  it("writes nothing for a document deleted before it ran", async () => {
    const { document, input } = queued();
    tables.items("libraries").splice(tables.items("libraries").findIndex((row) => row.sk === `DOC#${document.id}`), 1);

    expect(await run(input, aContext())).toBeNull();
    expect(updates()).toEqual([]);
    expect(vectors.upsert).not.toHaveBeenCalled();
  });

  it("records bytes it cannot read as the document's error, with a reason for the user, and indexes nothing", async () => {
    const { document, input } = queued(Buffer.from([0x00, 0xff, 0x10, 0x00, 0x7f]));

    expect(await run(input, aContext())).toEqual({ status: "error" });

    expect(documentIn(tables, document)).toMatchObject({
      status: "error",
      processError: expect.stringMatching(/^The document is not one we can read; upload PDF, DOCX/),
      generation: 1,
      lastProcessedAt: expect.stringMatching(/Z$/),
    });
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(vectors.upsert).not.toHaveBeenCalled();
  });

  it("records a document without text as missing_content", async () => {
    const { document, input } = queued("   \n\n  ");

    expect(await run(input, aContext())).toEqual({ status: "missing_content" });

    expect(documentIn(tables, document)).toMatchObject({ status: "missing_content", processError: "The document has no text to index", chunks: 0, tokensProcessed: 0 });
    expect(vectors.upsert).not.toHaveBeenCalled();
  });

  it("removes the vectors it wrote when the document is deleted while it runs", async () => {
    const { document, input } = queued();
    vectors.upsert.mockImplementation(async () => {
      const rows = tables.items("libraries");
      rows.splice(rows.findIndex((row) => row.sk === `DOC#${document.id}`), 1);
    });

    expect(await run(input, aContext())).toBeNull();

    expect(vectors.deleteDocument).toHaveBeenCalledTimes(2);
    expect(vectors.deleteDocument.mock.invocationCallOrder[1]).toBeGreaterThan(vectors.upsert.mock.invocationCallOrder[0]!);
    expect(vectors.deleteDocument).toHaveBeenLastCalledWith(document.workspace, document.libraryId, document.id);
    expect(documentIn(tables, document)).toBeUndefined();
  });
});

describe("library ingestion RecordFailure task", () => {
  const failure = (input: LibraryIngestionInput, error: string, cause: string) => ({ ...input, failure: { Error: error, Cause: cause } });
  const INTERNALS = JSON.stringify({ errorType: "Error", errorMessage: "connect ECONNREFUSED 10.0.3.7:443", trace: ["at /var/task/index.js:1:2"] });

  it("marks the document error with a message for the user and none of the failure's internals", async () => {
    const { document, input } = queued(TEXT, { status: "in_progress" });

    expect(await recordFailure(failure(input, "Error", INTERNALS), aContext())).toBeNull();

    const [update] = updates();
    expect(updates()).toHaveLength(1);
    expect(update).toMatchObject({ ConditionExpression: "attribute_exists(pk) AND #generation = :generation", ExpressionAttributeValues: expect.objectContaining({ ":generation": 1 }) });
    expect(setTo(update!, "status")).toBe("error");
    const stored = documentIn(tables, document)!;
    expect(stored).toMatchObject({ status: "error", processError: "An internal error stopped processing; reprocess the document to try again", lastProcessedAt: expect.stringMatching(/Z$/) });
    expect(JSON.stringify(stored)).not.toMatch(/ECONNREFUSED|10\.0\.3\.7|\/var\/task/);
  });

  it("says a timeout is one", async () => {
    const { document, input } = queued(TEXT, { status: "in_progress" });

    await recordFailure(failure(input, "States.Timeout", ""), aContext());

    expect(documentIn(tables, document)).toMatchObject({ status: "error", processError: "Processing took longer than its time limit; split the document or reprocess it" });
  });

  it("leaves a document that moved on to another generation alone", async () => {
    const { document, input } = queued(TEXT, { status: "todo", generation: 2 });

    expect(await recordFailure(failure(input, "Error", INTERNALS), aContext())).toBeNull();

    expect(documentIn(tables, document)).toMatchObject({ status: "todo", processError: null, generation: 2 });
  });
});
