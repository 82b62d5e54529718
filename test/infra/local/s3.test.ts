/**
 * The local S3 (s3rver, infra/local/s3.ts) answers AbortMultipartUpload as S3 does, which s3rver alone
 * refuses: the streaming upload service aborts the multipart upload of a file it gives up on, and locally
 * that must neither fail nor leave the parts in the data directory.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, S3Client, UploadPartCommand } from "@aws-sdk/client-s3";
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
