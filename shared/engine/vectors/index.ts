/**
 * The deployment's vector store: S3 Vectors where CDK named a vector bucket (VECTOR_BUCKET), else LanceDB in the
 * local directory the embedded stack names (VECTORS_DIR, under the data directory). One store per process.
 */
import { VECTORS_DIR_ENV, VECTOR_BUCKET_ENV } from "../../config.js";
import type { VectorStore } from "./store.js";

let store: Promise<VectorStore> | undefined;

export function vectorStore(): Promise<VectorStore> {
  return (store ??= open());
}

async function open(): Promise<VectorStore> {
  if (process.env[VECTOR_BUCKET_ENV]) {
    const { S3VectorsStore } = await import("./s3vectors.js");
    return new S3VectorsStore();
  }
  const directory = process.env[VECTORS_DIR_ENV];
  if (!directory) throw new Error(`Missing environment setting ${VECTOR_BUCKET_ENV} (or ${VECTORS_DIR_ENV} locally)`);
  // A separate module keeps the native engine out of Lambda bundles (infra/build.ts marks it external).
  const { LanceDbVectorStore } = await import("./lancedb.js");
  return new LanceDbVectorStore(directory);
}

/** Forgets the process's store (tests that change the environment). */
export function resetVectorStore(): void {
  store = undefined;
}

export type { ChunkVector, VectorHit, VectorQuery, VectorStore } from "./store.js";
