import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import S3rver from "s3rver";

export interface RunningS3 {
  endpoint: string;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

interface MultipartStore {
  getResourcePath(bucket: string, key: string | undefined, type: string): string;
  putObjectMultipart(bucket: string, uploadId: string, parts: { number: number; etag: string }[]): Promise<unknown>;
}

/** s3rver in-process; it checks the access key id (must be S3RVER) and presign expiry, not signatures. */
export async function startS3(options: { dataDir: string; buckets: string[] }): Promise<RunningS3> {
  mkdirSync(options.dataDir, { recursive: true });
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: options.dataDir,
    configureBuckets: options.buckets.map((name) => ({ name, configs: [] })),
  });
  checkPartsOnComplete((server as unknown as { store: MultipartStore }).store);
  const address = (await server.run()) as { port: number };
  return { endpoint: `http://127.0.0.1:${address.port}`, stop: () => server.close() as Promise<void> };
}

/**
 * S3 answers CompleteMultipartUpload naming a part that was never uploaded (or with another ETag) with
 * 400 InvalidPart. s3rver opens each listed part's file without checking, and the read stream's ENOENT has
 * no listener: one such request ended the whole process (`npm start`, the test run). Checked first here,
 * with S3's answer, so the local stack refuses it as S3 would.
 */
function checkPartsOnComplete(store: MultipartStore): void {
  const S3Error = require("s3rver/lib/models/error.js") as new (code: string, message: string) => Error;
  const assemble = store.putObjectMultipart.bind(store);
  store.putObjectMultipart = async (bucket, uploadId, parts) => {
    const uploadDir = join(store.getResourcePath(bucket, undefined, "uploads"), uploadId);
    // An upload that is gone keeps s3rver's own answer (NoSuchUpload).
    if ((await readFile(join(uploadDir, "key")).catch(() => undefined)) === undefined) return assemble(bucket, uploadId, parts);
    for (const part of parts) {
      const md5 = await readFile(join(uploadDir, `${part.number}.md5`), "utf8").catch(() => undefined);
      if (md5 === undefined || md5.trim() !== part.etag) {
        throw new S3Error(
          "InvalidPart",
          "One or more of the specified parts could not be found. The part might not have been uploaded, or the specified entity tag might not have matched the part's entity tag.",
        );
      }
    }
    return assemble(bucket, uploadId, parts);
  };
}
