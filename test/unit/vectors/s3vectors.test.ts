/**
 * The S3 Vectors adapter against a fake of the client: S3 Vectors has no local stand-in (decision 0069), so these
 * tests hold the adapter to the exact commands it sends and to how it reads the answers.
 */
import {
  ConflictException,
  CreateIndexCommand,
  DeleteIndexCommand,
  DeleteVectorsCommand,
  ListVectorsCommand,
  NotFoundException,
  PutVectorsCommand,
  QueryVectorsCommand,
  S3VectorsClient,
  ValidationException,
} from "@aws-sdk/client-s3vectors";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { BadRequest } from "../../../shared/domain/errors.js";
import { S3VectorsStore } from "../../../shared/engine/vectors/s3vectors.js";
import { libraryIndexName, type ChunkVector } from "../../../shared/engine/vectors/store.js";

const client = new S3VectorsClient({ region: "us-east-1" });
const fake = mockClient(client);
const store = new S3VectorsStore(client, "platform-vectors");
const INDEX = libraryIndexName("ws-1", "lib-1");
const where = { vectorBucketName: "platform-vectors", indexName: INDEX };

const notFound = () => new NotFoundException({ message: "The specified index could not be found", $metadata: {} });

const aChunk = (documentId: string, chunkIndex: number, over: Partial<ChunkVector> = {}): ChunkVector => ({
  documentId,
  chunkIndex,
  text: `text ${chunkIndex}`,
  createdAt: 1_700_000_000,
  vector: [0.6, 0.8],
  ...over,
});

beforeEach(() => fake.reset());

describe("libraryIndexName", () => {
  it("names a library's index from its workspace and id, within S3 Vectors' naming rules", () => {
    expect(INDEX).toMatch(/^lib-[0-9a-f]{40}$/);
    expect(libraryIndexName("ws-2", "lib-1")).not.toBe(INDEX);
    expect(libraryIndexName("ws-1", "lib-1")).toBe(INDEX);
  });
});

describe("the S3 Vectors store", () => {
  it("puts vectors with their metadata, the text as the index's non-filterable key, attributes under a_<key>", async () => {
    fake.on(PutVectorsCommand).resolves({});
    await store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, { documentName: "a.pdf", mimeType: "application/pdf", attributes: { author: "ann", year: 2024, draft: true } })]);
    expect(fake.commandCalls(PutVectorsCommand).map((c) => c.args[0].input)).toStrictEqual([
      {
        ...where,
        vectors: [
          {
            key: "doc-a#0",
            data: { float32: [0.6, 0.8] },
            metadata: { document_id: "doc-a", chunk_index: 0, created_at: 1_700_000_000, text: "text 0", document_name: "a.pdf", mime_type: "application/pdf", a_author: "ann", a_year: 2024, a_draft: true },
          },
        ],
      },
    ]);
    expect(fake.commandCalls(CreateIndexCommand)).toHaveLength(0);
  });

  it("creates the library's index on its first write (cosine, float32, text non-filterable) and writes again", async () => {
    fake.on(PutVectorsCommand).rejectsOnce(notFound()).resolves({});
    fake.on(CreateIndexCommand).resolves({});
    await store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0)]);
    expect(fake.commandCalls(CreateIndexCommand).map((c) => c.args[0].input)).toStrictEqual([
      { ...where, dataType: "float32", dimension: 2, distanceMetric: "cosine", metadataConfiguration: { nonFilterableMetadataKeys: ["text"] } },
    ]);
    expect(fake.commandCalls(PutVectorsCommand)).toHaveLength(2);
  });

  it("takes another writer's index as its own when both create it at once", async () => {
    fake.on(PutVectorsCommand).rejectsOnce(notFound()).resolves({});
    fake.on(CreateIndexCommand).rejects(new ConflictException({ message: "exists", $metadata: {} }));
    await expect(store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0)])).resolves.toBeUndefined();
    expect(fake.commandCalls(PutVectorsCommand)).toHaveLength(2);
  });

  it("writes 500 vectors a call at most", async () => {
    fake.on(PutVectorsCommand).resolves({});
    await store.upsert("ws-1", "lib-1", Array.from({ length: 1201 }, (_, i) => aChunk("doc-a", i)));
    expect(fake.commandCalls(PutVectorsCommand).map((c) => c.args[0].input.vectors!.length)).toStrictEqual([500, 500, 201]);
  });

  it("keeps a request under 20 MiB: large vectors with long texts go in smaller batches", async () => {
    fake.on(PutVectorsCommand).resolves({});
    const vector = Array.from({ length: 4096 }, (_, i) => Math.sin(i));
    await store.upsert("ws-1", "lib-1", Array.from({ length: 500 }, (_, i) => aChunk("doc-a", i, { vector, text: "x".repeat(30_000) })));
    const sizes = fake.commandCalls(PutVectorsCommand).map((c) => JSON.stringify(c.args[0].input).length);
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThan(20 * 1024 * 1024);
  });

  it("refuses, before any call, a chunk whose filterable metadata is over 2 KB", async () => {
    await expect(store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, { documentName: "n".repeat(2100) })])).rejects.toThrow(/filterable metadata .* more than 2048/);
    expect(fake.calls()).toHaveLength(0);
  });

  it("queries each library's index with the compiled filter and merges the answers by similarity", async () => {
    const lib2 = libraryIndexName("ws-1", "lib-2");
    fake
      .on(QueryVectorsCommand, { indexName: INDEX })
      .resolves({ distanceMetric: "cosine", vectors: [{ key: "doc-a#3", distance: 0.25, metadata: { document_id: "doc-a", chunk_index: 3, created_at: 5, text: "alpha", mime_type: "text/plain", a_year: 2024 } }] });
    fake.on(QueryVectorsCommand, { indexName: lib2 }).resolves({ distanceMetric: "cosine", vectors: [{ key: "doc-b#0", distance: 0.1, metadata: { document_id: "doc-b", chunk_index: 0, created_at: 6, text: "beta" } }] });
    const hits = await store.query({
      workspace: "ws-1",
      libraryIds: ["lib-1", "lib-2"],
      vector: [1, 0],
      topK: 3,
      filter: { op: "not", filter: { op: "eq", field: "attributes.draft", value: true } },
    });
    expect(fake.commandCalls(QueryVectorsCommand).map((c) => c.args[0].input)).toStrictEqual(
      [INDEX, lib2].map((indexName) => ({
        vectorBucketName: "platform-vectors",
        indexName,
        topK: 3,
        queryVector: { float32: [1, 0] },
        filter: { $or: [{ a_draft: { $ne: true } }, { a_draft: { $exists: false } }] },
        returnMetadata: true,
        returnDistance: true,
      })),
    );
    expect(hits).toStrictEqual([
      { libraryId: "lib-2", documentId: "doc-b", chunkIndex: 0, text: "beta", score: 0.9, documentName: null, mimeType: null, createdAt: 6, attributes: {} },
      { libraryId: "lib-1", documentId: "doc-a", chunkIndex: 3, text: "alpha", score: 0.75, documentName: null, mimeType: "text/plain", createdAt: 5, attributes: { year: 2024 } },
    ]);
  });

  it("answers nothing for a library with no index yet, and never queries another workspace's index", async () => {
    fake.on(QueryVectorsCommand).rejects(notFound());
    expect(await store.query({ workspace: "ws-2", libraryIds: ["lib-1"], vector: [1, 0], topK: 3 })).toStrictEqual([]);
    expect(fake.commandCalls(QueryVectorsCommand).map((c) => c.args[0].input.indexName)).toStrictEqual([libraryIndexName("ws-2", "lib-1")]);
    expect(libraryIndexName("ws-2", "lib-1")).not.toBe(INDEX);
  });

  it("asks no more than S3 Vectors' top-k of 100, and says why it refuses a filter", async () => {
    await expect(store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: [1, 0], topK: 101 })).rejects.toThrow(/top_k must be a whole number from 1 to 100/);
    await expect(store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: [1, 0], topK: 1, filter: { op: "gt", field: "mime_type", value: 1 } })).rejects.toThrow(
      /gt compares numbers and mime_type holds strings/,
    );
    expect(fake.calls()).toHaveLength(0);
  });

  it("turns S3 Vectors' refusal of a query vector into a 400 that says so", async () => {
    fake.on(QueryVectorsCommand).rejects(new ValidationException({ message: "Invalid query vector dimension", $metadata: {}, fieldList: [] }));
    const attempt = store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: [1, 0, 0], topK: 1 });
    await expect(attempt).rejects.toBeInstanceOf(BadRequest);
    await expect(attempt).rejects.toThrow(/Invalid query vector dimension/);
  });

  it("deletes a document by listing the library's keys, page by page, and deleting its own 500 at a time", async () => {
    const keys = (doc: string, from: number, n: number) => Array.from({ length: n }, (_, i) => ({ key: `${doc}#${from + i}` }));
    fake
      .on(ListVectorsCommand)
      .resolvesOnce({ vectors: [...keys("doc-a", 0, 400), ...keys("doc-b", 0, 600)], nextToken: "t1" })
      .resolvesOnce({ vectors: [...keys("doc-a", 400, 200), { key: "doc-a#x#1" }, { key: "doc-ab#1" }] });
    fake.on(DeleteVectorsCommand).resolves({});
    expect(await store.deleteDocument("ws-1", "lib-1", "doc-a")).toBe(600);
    expect(fake.commandCalls(ListVectorsCommand).map((c) => c.args[0].input)).toStrictEqual([
      { ...where, maxResults: 1000, returnData: false, returnMetadata: false, nextToken: undefined },
      { ...where, maxResults: 1000, returnData: false, returnMetadata: false, nextToken: "t1" },
    ]);
    const deleted = fake.commandCalls(DeleteVectorsCommand).map((c) => c.args[0].input);
    expect(deleted.map((d) => d.keys!.length)).toStrictEqual([500, 100]);
    expect(deleted.every((d) => d.vectorBucketName === "platform-vectors" && d.indexName === INDEX)).toBe(true);
    expect(deleted.flatMap((d) => d.keys!).every((k) => /^doc-a#\d+$/.test(k))).toBe(true);
  });

  it("deletes nothing of a library with no index", async () => {
    fake.on(ListVectorsCommand).rejects(notFound());
    expect(await store.deleteDocument("ws-1", "lib-1", "doc-a")).toBe(0);
    expect(fake.commandCalls(DeleteVectorsCommand)).toHaveLength(0);
  });

  it("deletes a library by deleting its index, and a missing one is already deleted", async () => {
    fake.on(DeleteIndexCommand).resolvesOnce({}).rejects(notFound());
    await store.deleteLibrary("ws-1", "lib-1");
    await expect(store.deleteLibrary("ws-1", "lib-1")).resolves.toBeUndefined();
    expect(fake.commandCalls(DeleteIndexCommand).map((c) => c.args[0].input)).toStrictEqual([where, where]);
  });
});
