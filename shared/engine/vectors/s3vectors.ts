/**
 * The cloud vector store: Amazon S3 Vectors, serverless and billed by what is stored and queried (nothing when
 * idle). One vector bucket (VECTOR_BUCKET, built by CDK) holds one index per (workspace, library), named by
 * libraryIndexName, created on the library's first write (cosine, float32, the chunk text non-filterable). S3 Vectors
 * has no local stand-in: this adapter is tested against a fake of the client (test/unit/vectors/s3vectors.test.ts),
 * the filter compiler by property tests, and the embedded engine against LanceDB (decision 0069).
 *
 * Quotas it keeps (docs/vector-search.md): 500 vectors per PutVectors and DeleteVectors, 20 MiB per request, top-k
 * 100 per query, 1,000 keys per ListVectors page, 2 KB filterable / 40 KB total metadata and 50 keys per vector
 * (checked before writing, shared/domain/vector-filter.ts), 10,000 indexes per bucket (one per library).
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
  type PutInputVector,
  type QueryVectorsCommandInput,
} from "@aws-sdk/client-s3vectors";
import { VECTOR_BUCKET_ENV, setting } from "../../config.js";
import { BadRequest } from "../../domain/errors.js";
import { s3AttributeKey, toS3Filter, type NormalFilter } from "../../domain/vector-filter.js";
import type { Attributes, FilterScalar } from "../../schemas/vector-search.js";
import {
  checkChunks,
  chunkKey,
  documentKeyPrefix,
  libraryIndexName,
  searchLibraries,
  type ChunkVector,
  type VectorHit,
  type VectorQuery,
  type VectorStore,
} from "./store.js";


/** S3 Vectors' per-call quotas. */
export const S3_VECTORS_QUOTAS = {
  putVectors: 500,
  deleteVectors: 500,
  listPage: 1000,
  requestBytes: 20 * 1024 * 1024,
} as const;
/** What one PutVectors batch may weigh as we count it: under the 20 MiB request limit with room for the envelope. */
const PUT_BATCH_BYTES = 16 * 1024 * 1024;

/** The metadata key of the chunk text: non-filterable (up to 40 KB), returned with each hit. */
const TEXT_KEY = "text";

function toMetadata(chunk: ChunkVector): Record<string, FilterScalar> {
  const metadata: Record<string, FilterScalar> = {
    document_id: chunk.documentId,
    chunk_index: chunk.chunkIndex,
    created_at: chunk.createdAt,
    [TEXT_KEY]: chunk.text,
  };
  if (chunk.documentName != null) metadata.document_name = chunk.documentName;
  if (chunk.mimeType != null) metadata.mime_type = chunk.mimeType;
  for (const [key, value] of Object.entries(chunk.attributes ?? {})) metadata[s3AttributeKey(key)] = value;
  return metadata;
}

function toHit(libraryId: string, key: string, distance: number, metadata: Record<string, unknown>): VectorHit {
  const attributes: Attributes = {};
  for (const [k, v] of Object.entries(metadata)) if (k.startsWith("a_")) attributes[k.slice(2)] = v as FilterScalar;
  const [documentId, index] = [key.slice(0, key.lastIndexOf("#")), key.slice(key.lastIndexOf("#") + 1)];
  return {
    libraryId,
    documentId: typeof metadata.document_id === "string" ? metadata.document_id : documentId,
    chunkIndex: typeof metadata.chunk_index === "number" ? metadata.chunk_index : Number(index),
    text: typeof metadata[TEXT_KEY] === "string" ? metadata[TEXT_KEY] : "",
    score: 1 - distance,
    documentName: typeof metadata.document_name === "string" ? metadata.document_name : null,
    mimeType: typeof metadata.mime_type === "string" ? metadata.mime_type : null,
    createdAt: typeof metadata.created_at === "number" ? metadata.created_at : 0,
    attributes,
  };
}

/** Splits the vectors of an upsert into PutVectors calls: at most 500 each, and under the request size. */
function putBatches(vectors: PutInputVector[]): PutInputVector[][] {
  const batches: PutInputVector[][] = [];
  let batch: PutInputVector[] = [];
  let bytes = 0;
  for (const vector of vectors) {
    // float32 values travel as JSON numbers (up to ~16 characters each), metadata as JSON.
    const size = (vector.data!.float32!.length ?? 0) * 16 + JSON.stringify(vector.metadata).length * 2 + vector.key!.length;
    if (batch.length === S3_VECTORS_QUOTAS.putVectors || (batch.length > 0 && bytes + size > PUT_BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(vector);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

export class S3VectorsStore implements VectorStore {
  readonly engine = "s3vectors" as const;

  constructor(
    private readonly client: S3VectorsClient = new S3VectorsClient({}),
    private readonly bucket: string = setting(VECTOR_BUCKET_ENV),
  ) {}

  private where(indexName: string) {
    return { vectorBucketName: this.bucket, indexName };
  }

  async upsert(workspace: string, libraryId: string, chunks: readonly ChunkVector[]): Promise<void> {
    if (chunks.length === 0) return;
    const dimension = checkChunks(chunks);
    const indexName = libraryIndexName(workspace, libraryId);
    const vectors: PutInputVector[] = chunks.map((chunk) => ({
      key: chunkKey(chunk.documentId, chunk.chunkIndex),
      data: { float32: Array.from(chunk.vector) },
      metadata: toMetadata(chunk),
    }));
    for (const batch of putBatches(vectors)) {
      try {
        await this.client.send(new PutVectorsCommand({ ...this.where(indexName), vectors: batch }));
      } catch (error) {
        // The library's first write: its index does not exist yet (no extra call on every later write).
        if (!(error instanceof NotFoundException)) throw asStoreError(error);
        await this.createIndex(indexName, dimension);
        await this.client.send(new PutVectorsCommand({ ...this.where(indexName), vectors: batch })).catch((e) => Promise.reject(asStoreError(e)));
      }
    }
  }

  private async createIndex(indexName: string, dimension: number): Promise<void> {
    try {
      await this.client.send(
        new CreateIndexCommand({
          ...this.where(indexName),
          dataType: "float32",
          dimension,
          distanceMetric: "cosine",
          metadataConfiguration: { nonFilterableMetadataKeys: [TEXT_KEY] },
        }),
      );
    } catch (error) {
      // Another writer created it first.
      if (!(error instanceof ConflictException)) throw asStoreError(error);
    }
  }

  query(query: VectorQuery): Promise<VectorHit[]> {
    return searchLibraries(query, (libraryId, filter) => this.search(query, libraryId, filter));
  }

  private async search(query: VectorQuery, libraryId: string, filter: NormalFilter | undefined): Promise<VectorHit[]> {
    try {
      const out = await this.client.send(
        new QueryVectorsCommand({
          ...this.where(libraryIndexName(query.workspace, libraryId)),
          topK: query.topK,
          queryVector: { float32: Array.from(query.vector) },
          ...(filter ? { filter: toS3Filter(filter) as QueryVectorsCommandInput["filter"] } : {}),
          returnMetadata: true,
          returnDistance: true,
        }),
      );
      return (out.vectors ?? []).map((v) => toHit(libraryId, v.key!, v.distance ?? 1, (v.metadata ?? {}) as Record<string, unknown>));
    } catch (error) {
      // A library with nothing indexed yet has no index.
      if (error instanceof NotFoundException) return [];
      throw asStoreError(error);
    }
  }

  /**
   * S3 Vectors deletes by key and lists no key range: the library's keys are listed (1,000 a page, keys only) and
   * those of the document deleted, 500 a call. The cost is the library's size, which bounds an index (decision 0069).
   */
  async deleteDocument(workspace: string, libraryId: string, documentId: string): Promise<number> {
    const where = this.where(libraryIndexName(workspace, libraryId));
    const prefix = documentKeyPrefix(documentId);
    const keys: string[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const page = await this.client.send(new ListVectorsCommand({ ...where, maxResults: S3_VECTORS_QUOTAS.listPage, returnData: false, returnMetadata: false, nextToken }));
        for (const v of page.vectors ?? []) if (v.key?.startsWith(prefix) && /^\d+$/.test(v.key.slice(prefix.length))) keys.push(v.key);
        nextToken = page.nextToken;
      } while (nextToken);
    } catch (error) {
      if (error instanceof NotFoundException) return 0;
      throw asStoreError(error);
    }
    for (let i = 0; i < keys.length; i += S3_VECTORS_QUOTAS.deleteVectors)
      await this.client.send(new DeleteVectorsCommand({ ...where, keys: keys.slice(i, i + S3_VECTORS_QUOTAS.deleteVectors) })).catch((e) => Promise.reject(asStoreError(e)));
    return keys.length;
  }

  async deleteLibrary(workspace: string, libraryId: string): Promise<void> {
    try {
      await this.client.send(new DeleteIndexCommand(this.where(libraryIndexName(workspace, libraryId))));
    } catch (error) {
      if (!(error instanceof NotFoundException)) throw asStoreError(error);
    }
  }
}

/** S3 Vectors' refusal of what the caller sent (a dimension that is not the index's): a 400 that says why. */
function asStoreError(error: unknown): unknown {
  if (error instanceof ValidationException) return new BadRequest(`the vector store refused the request: ${error.message}`, "vector_store_validation");
  return error;
}
