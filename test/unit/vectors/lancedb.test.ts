import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { BadRequest } from "../../../shared/domain/errors.js";
import type { ChunkMetadata } from "../../../shared/domain/vector-filter.js";
import { LanceDbVectorStore } from "../../../shared/engine/vectors/lancedb.js";
import type { ChunkVector } from "../../../shared/engine/vectors/store.js";
import { chunkMetadata, matches, vectorFilter } from "../../support/vector-filters.js";

const DIM = 8;
const dirs: string[] = [];
const stores: LanceDbVectorStore[] = [];

/** A store in a directory of its own: test files and processes never share one. */
function aStore(dir = mkdtempSync(join(tmpdir(), "vectors-")), annMinRows?: number): LanceDbVectorStore {
  dirs.push(dir);
  const store = new LanceDbVectorStore(dir, { annMinRows });
  stores.push(store);
  return store;
}

afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A unit vector pointing mostly along axis `axis`, tilted by `tilt` towards the next axis. */
function along(axis: number, tilt = 0, dim = DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  v[axis % dim] = 1;
  v[(axis + 1) % dim] = tilt;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const aChunk = (documentId: string, chunkIndex: number, vector: number[], over: Partial<ChunkVector> = {}): ChunkVector => ({
  documentId,
  chunkIndex,
  text: `${documentId} chunk ${chunkIndex}`,
  createdAt: 1_700_000_000,
  vector,
  ...over,
});

describe("the LanceDB vector store", () => {
  it("answers the nearest chunks first, with their cosine similarity and metadata", async () => {
    const store = aStore();
    await store.upsert("ws-1", "lib-1", [
      aChunk("doc-a", 0, along(0), { documentName: "a.pdf", mimeType: "application/pdf", attributes: { author: "ann", year: 2024, draft: false } }),
      aChunk("doc-a", 1, along(0, 0.5)),
      aChunk("doc-b", 0, along(3)),
    ]);
    const hits = await store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0, 0.1), topK: 2 });
    expect(hits.map((h) => [h.documentId, h.chunkIndex])).toStrictEqual([
      ["doc-a", 0],
      ["doc-a", 1],
    ]);
    expect(hits[0]).toMatchObject({ libraryId: "lib-1", text: "doc-a chunk 0", documentName: "a.pdf", mimeType: "application/pdf", createdAt: 1_700_000_000, attributes: { author: "ann", year: 2024, draft: false } });
    expect(hits[0]!.score).toBeCloseTo(1 / Math.hypot(1, 0.1), 5);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it("never answers from another workspace, even for the same library id", async () => {
    const store = aStore();
    await store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, along(0))]);
    expect(await store.query({ workspace: "ws-2", libraryIds: ["lib-1"], vector: along(0), topK: 5 })).toStrictEqual([]);
    expect(await store.deleteDocument("ws-2", "lib-1", "doc-a")).toBe(0);
    await store.deleteLibrary("ws-2", "lib-1");
    expect(await store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0), topK: 5 })).toHaveLength(1);
  });

  it("searches only the libraries named, merging them by similarity", async () => {
    const store = aStore();
    await store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, along(0, 0.3))]);
    await store.upsert("ws-1", "lib-2", [aChunk("doc-b", 0, along(0, 0.1))]);
    await store.upsert("ws-1", "lib-3", [aChunk("doc-c", 0, along(0))]);
    const hits = await store.query({ workspace: "ws-1", libraryIds: ["lib-1", "lib-2", "lib-2", "lib-unknown"], vector: along(0), topK: 5 });
    expect(hits.map((h) => [h.libraryId, h.documentId])).toStrictEqual([
      ["lib-2", "doc-b"],
      ["lib-1", "doc-a"],
    ]);
    expect(await store.query({ workspace: "ws-1", libraryIds: [], vector: along(0), topK: 5 })).toStrictEqual([]);
  });

  it("replaces a chunk written again (same document and index)", async () => {
    const store = aStore();
    await store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, along(0), { text: "old" })]);
    await store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, along(1), { text: "new", attributes: { v: 2 } })]);
    expect(await store.count("ws-1", "lib-1")).toBe(1);
    const [hit] = await store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(1), topK: 1 });
    expect(hit).toMatchObject({ text: "new", attributes: { v: 2 } });
    expect(hit!.score).toBeCloseTo(1, 5);
  });

  it("deletes a document's chunks and no other's, and a whole library", async () => {
    const store = aStore();
    const hostile = "it's'; DELETE FROM x; --";
    await store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, along(0)), aChunk("doc-a", 1, along(1)), aChunk(hostile, 0, along(2)), aChunk("doc-b", 0, along(3))]);
    expect(await store.deleteDocument("ws-1", "lib-1", "doc-a")).toBe(2);
    expect(await store.deleteDocument("ws-1", "lib-1", hostile)).toBe(1);
    const left = await store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0), topK: 10 });
    expect(left.map((h) => h.documentId)).toStrictEqual(["doc-b"]);
    await store.deleteLibrary("ws-1", "lib-1");
    expect(await store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0), topK: 10 })).toStrictEqual([]);
    await expect(store.deleteLibrary("ws-1", "lib-1")).resolves.toBeUndefined();
  });

  it("refuses vectors of another dimension than the library's, and a top_k out of bounds", async () => {
    const store = aStore();
    await store.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, along(0))]);
    await expect(store.upsert("ws-1", "lib-1", [aChunk("doc-b", 0, [1, 0, 0])])).rejects.toThrow(/8 dimensions, these 3/);
    await expect(store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: [1, 0], topK: 1 })).rejects.toBeInstanceOf(BadRequest);
    await expect(store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0), topK: 101 })).rejects.toThrow(/top_k must be a whole number from 1 to 100/);
  });

  it("filters exactly as the language says, on the real engine", async () => {
    const store = aStore();
    const chunks = fc.sample(chunkMetadata, { numRuns: 40, seed: 28 });
    // Distinct (document, index) pairs; every chunk the same direction so that the filter alone decides.
    const unique = [...new Map(chunks.map((c) => [`${c.documentId}#${c.chunkIndex}`, c])).values()];
    await store.upsert("ws-1", "lib-1", unique.map((c) => ({ ...c, vector: along(0) })));
    const key = (c: Pick<ChunkMetadata, "documentId" | "chunkIndex">) => `${c.documentId}#${c.chunkIndex}`;
    await fc.assert(
      fc.asyncProperty(vectorFilter, async (filter) => {
        const hits = await store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0), topK: 100, filter });
        const expected = unique.filter((c) => matches(filter, c)).map(key).sort();
        expect(hits.map(key).sort(), JSON.stringify(filter)).toStrictEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps every chunk when two writers (separate connections) create and fill one library at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vectors-"));
    const [one, two] = [aStore(dir), aStore(dir)];
    const batch = (doc: string) => Array.from({ length: 20 }, (_, i) => aChunk(doc, i, along(i, 0.2)));
    await Promise.all([one.upsert("ws-1", "lib-1", batch("doc-a")), two.upsert("ws-1", "lib-1", batch("doc-b")), one.upsert("ws-1", "lib-1", batch("doc-c"))]);
    expect(await one.count("ws-1", "lib-1")).toBe(60);
    const hits = await two.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0), topK: 100 });
    expect(new Set(hits.map((h) => h.documentId))).toStrictEqual(new Set(["doc-a", "doc-b", "doc-c"]));
  });

  it("sees a library deleted through another connection as gone, and writes it anew", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vectors-"));
    const [one, two] = [aStore(dir), aStore(dir)];
    await one.upsert("ws-1", "lib-1", [aChunk("doc-a", 0, along(0))]);
    expect(await one.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0), topK: 5 })).toHaveLength(1);
    await two.deleteLibrary("ws-1", "lib-1");
    expect(await one.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(0), topK: 5 })).toStrictEqual([]);
    await one.upsert("ws-1", "lib-1", [aChunk("doc-b", 0, along(1))]);
    expect((await two.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: along(1), topK: 5 })).map((h) => h.documentId)).toStrictEqual(["doc-b"]);
  });

  it("builds an ANN index once the table reaches its size, and still finds the nearest chunk", async () => {
    const store = aStore(undefined, 600);
    const dim = 32;
    const random = fc.sample(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: dim, maxLength: dim }), { numRuns: 700, seed: 7 });
    const vectors = random.map((v) => (v.every((x) => x === 0) ? along(0, 0, dim) : v));
    await store.upsert("ws-1", "lib-1", vectors.slice(0, 400).map((v, i) => aChunk("doc", i, v)));
    expect(await store.indexed("ws-1", "lib-1")).toBe(false);
    await store.upsert("ws-1", "lib-1", vectors.slice(400).map((v, i) => aChunk("doc", 400 + i, v)));
    expect(await store.indexed("ws-1", "lib-1")).toBe(true);
    for (const i of [3, 450, 699]) {
      const [hit] = await store.query({ workspace: "ws-1", libraryIds: ["lib-1"], vector: vectors[i]!, topK: 1 });
      expect(hit!.chunkIndex).toBe(i);
    }
  });
});
