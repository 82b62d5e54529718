/**
 * The local S3 (s3rver, infra/local/s3.ts) answers AbortMultipartUpload as S3 does, which s3rver alone
 * refuses: the streaming upload service aborts the multipart upload of a file it gives up on, and locally
 * that must neither fail nor leave the parts in the data directory.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, UploadPartCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startS3, type RunningS3 } from "../../../infra/local/s3.js";

const dir = mkdtempSync(join(tmpdir(), "platform-s3-"));
const BUCKET = "abort-test";
let running: RunningS3;
let s3: S3Client;

beforeAll(async () => {
  running = await startS3({ dataDir: dir, buckets: [BUCKET] });
  s3 = new S3Client({ endpoint: running.endpoint, forcePathStyle: true, region: "us-east-1", credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } });
});
afterAll(async () => {
  await running.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("AbortMultipartUpload on the local S3", () => {
  it("removes the upload's parts, after which completing it fails", async () => {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: "workspaces/w/files/f" }));
    const { ETag } = await s3.send(new UploadPartCommand({ Bucket: BUCKET, Key: "workspaces/w/files/f", UploadId, PartNumber: 1, Body: Buffer.alloc(1024, 1) }));
    const uploads = readdirSync(dir, { recursive: true }).map(String).filter((p) => p.endsWith(UploadId!));
    expect(uploads).toHaveLength(1);

    await s3.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: "workspaces/w/files/f", UploadId }));

    expect(existsSync(join(dir, uploads[0]!))).toBe(false);
    await expect(
      s3.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: "workspaces/w/files/f", UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag }] } })),
    ).rejects.toThrow();
  });

  it("answers an abort of an unknown upload without failing, as S3 does for one already aborted", async () => {
    await expect(s3.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: "workspaces/w/files/g", UploadId: "no-such-upload" }))).resolves.toBeDefined();
  });
});

describe("PutObject and DeleteObject under one prefix at once on the local S3", () => {
  it("neither ends the process nor loses the object put: a delete leaves the key's folder for the put beside it", async () => {
    for (let round = 0; round < 20; round += 1) {
      const folder = `workspaces/race-${round}/files`;
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${folder}/old`, Body: "old" }));
      await Promise.all([
        s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${folder}/old` })),
        s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${folder}/new`, Body: `new ${round}` })),
      ]);
      const read = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${folder}/new` }));
      expect(await read.Body!.transformToString()).toBe(`new ${round}`);
    }
  });

  it("answers a put whose file cannot be written with an error, and keeps serving", async () => {
    const blocked = "workspaces/blocked/files";
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${blocked}/x`, Body: "x" }));
    // A file where the put needs a folder: the write fails (ENOTDIR), as a full or read-only disk would.
    const folder = readdirSync(dir, { recursive: true }).map(String).find((p) => p.endsWith("blocked/files"))!;
    rmSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder), "not a folder");

    await expect(s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${blocked}/y`, Body: "y" }))).rejects.toThrow();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: "workspaces/after/files/z", Body: "z" }));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: "workspaces/after/files/z" }))).Body!.transformToString()).toBe("z");
  });
});

/**
 * The local S3 has the files bucket's CORS rule (infra/files-cors.ts), as the deployed bucket does: a browser page
 * (the web console) PUTs parts to presigned upload URLs, reads each part's ETag, and follows download redirects.
 */
describe("CORS on the local S3", () => {
  const ORIGIN = "http://127.0.0.1:8080";

  it("answers a preflight for a PUT with any header from any origin", async () => {
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: "workspaces/w/cors/put" }), { expiresIn: 300 });

    const reply = await fetch(url, { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "PUT", "access-control-request-headers": "content-type, x-amz-checksum-crc32" } });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("access-control-allow-origin")).toBe("*");
    expect(reply.headers.get("access-control-allow-methods")).toBe("GET, PUT, HEAD");
    expect(reply.headers.get("access-control-allow-headers")).toBe("content-type, x-amz-checksum-crc32");
  });

  it("refuses a preflight for a method the rule does not allow", async () => {
    const reply = await fetch(`${running.endpoint}/${BUCKET}/workspaces/w/cors/put`, { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "DELETE" } });

    expect(reply.status).toBe(403);
    expect(reply.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("exposes ETag on a presigned part PUT and on a presigned GET, to any origin", async () => {
    const key = "workspaces/w/cors/object";
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }));
    const part = await fetch(await getSignedUrl(s3, new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber: 1 }), { expiresIn: 300 }), { method: "PUT", headers: { origin: ORIGIN }, body: "part one" });
    expect(part.status).toBe(200);
    expect(part.headers.get("access-control-allow-origin")).toBe("*");
    expect(part.headers.get("access-control-expose-headers")).toBe("ETag");
    expect(part.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.headers.get("etag")! }] } }));

    const read = await fetch(await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: key }), { expiresIn: 300 }), { headers: { origin: ORIGIN } });

    expect(read.status).toBe(200);
    expect(await read.text()).toBe("part one");
    expect(read.headers.get("access-control-allow-origin")).toBe("*");
    expect(read.headers.get("access-control-expose-headers")).toBe("ETag");
  });
});
