import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resetVectorStore, vectorStore } from "../../../shared/engine/vectors/index.js";

afterEach(() => {
  vi.unstubAllEnvs();
  resetVectorStore();
});

describe("vectorStore", () => {
  it("is S3 Vectors where the deployment names a vector bucket", async () => {
    vi.stubEnv("VECTOR_BUCKET", "platform-vectors");
    vi.stubEnv("VECTORS_DIR", "/nowhere");
    expect((await vectorStore()).engine).toBe("s3vectors");
  });

  it("is LanceDB in the local directory otherwise, and works there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vectors-"));
    try {
      vi.stubEnv("VECTOR_BUCKET", "");
      vi.stubEnv("VECTORS_DIR", dir);
      const store = await vectorStore();
      expect(store.engine).toBe("lancedb");
      await store.upsert("ws", "lib", [{ documentId: "d", chunkIndex: 0, text: "hello", createdAt: 1, vector: [1, 0] }]);
      expect((await store.query({ workspace: "ws", libraryIds: ["lib"], vector: [1, 0], topK: 1 }))[0]?.text).toBe("hello");
      expect(await vectorStore()).toBe(store);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says which setting is missing when neither is set", async () => {
    vi.stubEnv("VECTOR_BUCKET", "");
    vi.stubEnv("VECTORS_DIR", "");
    await expect(vectorStore()).rejects.toThrow("Missing environment setting VECTOR_BUCKET (or VECTORS_DIR locally)");
  });
});
