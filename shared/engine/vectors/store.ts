/**
 * The vector index behind document libraries (docs/vector-search.md, decision 0069): chunks of a library's
 * documents with their embeddings and metadata, searched by cosine similarity. Two engines implement it, LanceDB
 * (embedded, `npm start` and the tests) and Amazon S3 Vectors (the cloud); both keep one index per (workspace,
 * library) and read the same filter tree (shared/domain/vector-filter.ts).
 *
 * Scoping is not optional: every call names its workspace and its libraries, and a library's index is named from
 * both, so a call never reaches another workspace's vectors even with a library id it should not know.
 */
import { createHash } from "node:crypto";
import type { Attributes, VectorFilter } from "../../schemas/vector-search.js";
import { VECTOR_LIMITS, checkChunk, normalizeFilter, type ChunkMetadata, type NormalFilter } from "../../domain/vector-filter.js";
import { BadRequest } from "../../domain/errors.js";

/** One chunk of a document to index. */
export interface ChunkVector extends ChunkMetadata {
  vector: ArrayLike<number>;
}

/** A chunk found by a query. `score` is the cosine similarity (1 − cosine distance): 1 is the same direction. */
export interface VectorHit {
  libraryId: string;
  documentId: string;
  chunkIndex: number;
  text: string;
  score: number;
  documentName: string | null;
  mimeType: string | null;
  createdAt: number;
  attributes: Attributes;
}

export interface VectorQuery {
  workspace: string;
  /** The libraries to search, each of them one the caller may read (the service checks; the store only scopes). */
  libraryIds: readonly string[];
  vector: ArrayLike<number>;
  topK: number;
  filter?: VectorFilter;
}

export interface VectorStore {
  readonly engine: "lancedb" | "s3vectors";
  /** Writes chunks of one library (a chunk with the same document and index replaces the one there). */
  upsert(workspace: string, libraryId: string, chunks: readonly ChunkVector[]): Promise<void>;
  /** The `topK` chunks of the libraries nearest to the vector that pass the filter, nearest first. */
  query(query: VectorQuery): Promise<VectorHit[]>;
  /** Deletes a document's chunks; answers how many there were. */
  deleteDocument(workspace: string, libraryId: string, documentId: string): Promise<number>;
  /** Deletes a library's index with every chunk in it. */
  deleteLibrary(workspace: string, libraryId: string): Promise<void>;
}

/**
 * The name of a library's index in either engine: `lib-` and 40 hex digits of SHA-256 over the workspace and the
 * library. S3 Vectors names are 3–63 lower-case letters, digits, '-' and '.'; the hash keeps the pair's scope in a
 * name that fits, and a library id sent with another workspace names an index that does not exist.
 */
export function libraryIndexName(workspace: string, libraryId: string): string {
  if (!workspace || !libraryId) throw new Error("a library's index needs its workspace and its id");
  return `lib-${createHash("sha256").update(`${workspace}\n${libraryId}`).digest("hex").slice(0, 40)}`;
}

/** A chunk's key in its library's index: the document's id and the chunk's position. */
export const chunkKey = (documentId: string, chunkIndex: number): string => `${documentId}#${chunkIndex}`;
export const documentKeyPrefix = (documentId: string): string => `${documentId}#`;

/** Checks a query's arguments; answers its filter in normal form (undefined: no filter). */
export function checkQuery(query: VectorQuery): NormalFilter | undefined {
  if (!query.workspace) throw new Error("a vector query needs its workspace");
  if (!Number.isInteger(query.topK) || query.topK < 1 || query.topK > VECTOR_LIMITS.maxTopK)
    throw new BadRequest(`top_k must be a whole number from 1 to ${VECTOR_LIMITS.maxTopK}, not ${query.topK}`, "invalid_top_k", "top_k");
  if (query.vector.length < 1 || query.vector.length > VECTOR_LIMITS.maxDimension) throw new BadRequest(`a query vector has 1 to ${VECTOR_LIMITS.maxDimension} dimensions`, "invalid_vector");
  return query.filter ? normalizeFilter(query.filter) : undefined;
}

/** Checks every chunk of an upsert against the limits both engines keep; answers the batch's dimension. */
export function checkChunks(chunks: readonly ChunkVector[]): number {
  const dimension = chunks[0]?.vector.length ?? 0;
  if (dimension < 1 || dimension > VECTOR_LIMITS.maxDimension) throw new BadRequest(`a vector has 1 to ${VECTOR_LIMITS.maxDimension} dimensions, not ${dimension}`, "invalid_vector");
  const seen = new Set<string>();
  for (const chunk of chunks) {
    checkChunk(chunk, chunk.vector, dimension);
    const key = chunkKey(chunk.documentId, chunk.chunkIndex);
    if (seen.has(key)) throw new BadRequest(`chunk ${chunk.chunkIndex} of document ${chunk.documentId} appears twice in one upsert`, "duplicate_chunk");
    seen.add(key);
  }
  return dimension;
}

/** The nearest `topK` of several libraries' answers (each already nearest first). */
export const mergeHits = (answers: VectorHit[][], topK: number): VectorHit[] =>
  answers
    .flat()
    .sort((a, b) => b.score - a.score || a.libraryId.localeCompare(b.libraryId) || a.documentId.localeCompare(b.documentId) || a.chunkIndex - b.chunkIndex)
    .slice(0, topK);

/** A query run on each of its distinct libraries by `search`, the answers merged nearest first: what both engines do. */
export async function searchLibraries(query: VectorQuery, search: (libraryId: string, filter: NormalFilter | undefined) => Promise<VectorHit[]>): Promise<VectorHit[]> {
  const filter = checkQuery(query);
  const answers = await Promise.all(distinctLibraries(query.libraryIds).map((libraryId) => search(libraryId, filter)));
  return mergeHits(answers, query.topK);
}

/** The distinct libraries of a query, in order (a library named twice is searched once). */
export const distinctLibraries = (ids: readonly string[]): string[] => [...new Set(ids)];
