import { createHash } from "node:crypto";
import { createWriteStream, mkdirSync } from "node:fs";
import { mkdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import S3rver from "s3rver";
import { filesBucketCorsXml } from "../files-cors.js";

export interface RunningS3 {
  endpoint: string;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

interface MultipartStore {
  getResourcePath(bucket: string, key: string | undefined, type: string): string;
  putObjectMultipart(bucket: string, uploadId: string, parts: { number: number; etag: string }[]): Promise<unknown>;
}

interface WritingStore {
  getResourcePath(bucket: string, key: string | undefined, type: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; metadata: unknown; content: Buffer | Readable }): Promise<{ size: number; md5: string }>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: Readable): Promise<{ size: number; md5: string }>;
  deleteObject(bucket: string, key: string): Promise<void>;
}

/**
 * s3rver in-process; it checks the access key id (must be S3RVER) and presign expiry, not signatures. Every bucket
 * gets the files bucket's CORS rule (infra/files-cors.ts), as CDK gives it to the deployed one: s3rver answers
 * preflights and adds the CORS headers from it (set again on each start, so an existing data directory gets it too).
 */
export async function startS3(options: { dataDir: string; buckets: string[] }): Promise<RunningS3> {
  mkdirSync(options.dataDir, { recursive: true });
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: options.dataDir,
    configureBuckets: options.buckets.map((name) => ({ name, configs: [filesBucketCorsXml()] })),
  });
  checkPartsOnComplete((server as unknown as { store: MultipartStore }).store);
  writeWithoutCrashing((server as unknown as { store: WritingStore }).store);
  abortMultipartUploads(server as unknown as KoaApp, (server as unknown as { store: MultipartStore }).store);
  const address = (await server.run()) as { port: number };
  return { endpoint: `http://127.0.0.1:${address.port}`, stop: () => server.close() as Promise<void> };
}

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  status: number;
}
interface KoaApp {
  middleware: ((ctx: KoaContext, next: () => Promise<void>) => Promise<void>)[];
}

/**
 * S3's AbortMultipartUpload (`DELETE /<bucket>/<key>?uploadId=…`), which s3rver refuses as a method it does
 * not allow: the upload's parts are removed and 204 answered, as S3 does, so that an upload the streaming
 * service gives up on (a client gone, a file over the limit) leaves nothing in the data directory either.
 * Put in front of s3rver's own middleware (path-style requests: /<bucket>/<key>).
 */
function abortMultipartUploads(app: KoaApp, store: MultipartStore): void {
  app.middleware.unshift(async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method !== "DELETE" || typeof uploadId !== "string" || !/^[\w.-]+$/.test(uploadId)) return next();
    const bucket = decodeURIComponent(ctx.path.split("/")[1] ?? "");
    if (!/^[a-z0-9][a-z0-9.-]{2,62}$/.test(bucket) || bucket.includes("..")) return next();
    await rm(join(store.getResourcePath(bucket, undefined, "uploads"), uploadId), { recursive: true, force: true });
    ctx.status = 204;
  });
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

/**
 * s3rver writes an object's (or a part's) file through a write stream with no error listener, and its delete
 * removes the key's folders once empty: a delete and a put under one prefix at once removed the folder between the
 * put's mkdir and its open, and the stream's ENOENT ended the whole process (`npm start`, for every tenant; found by
 * the soak, docs/benchmarks.md §20). Here a write is a pipeline (any error fails that request alone, and the answer
 * waits until the file is on disk rather than until the last chunk was read), and a delete leaves its folders (an
 * empty folder is not an object: listings read files).
 */
function writeWithoutCrashing(store: WritingStore): void {
  store.putObject = async (object) => {
    const path = store.getResourcePath(object.bucket, object.key, "object");
    const written = await writeCounted(Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content, path);
    await store.putMetadata(object.bucket, object.key, object.metadata, written.md5);
    return written;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const path = join(store.getResourcePath(bucket, undefined, "uploads"), uploadId, String(partNumber));
    const written = await writeCounted(content, path);
    await writeFile(`${path}.md5`, written.md5);
    return written;
  };
  store.deleteObject = async (bucket, key) => {
    const files = ["object", "object.md5", "metadata.json"].map((type) => store.getResourcePath(bucket, key, type));
    await Promise.all(files.map((file) => unlink(file).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)))));
  };
}

/** Writes `content` to `path` (its folder made first) and answers its size and MD5 once the file is written. */
async function writeCounted(content: Readable, path: string): Promise<{ size: number; md5: string }> {
  await mkdir(dirname(path), { recursive: true });
  const md5 = createHash("md5");
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      md5.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(content, count, createWriteStream(path));
  return { size, md5: md5.digest("hex") };
}
