import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { filesBucket } from "../config.js";
import { s3 } from "./client.js";

/**
 * The batch engine's own objects: a job's request chunks, its chunk manifest and each chunk's
 * results, all under `workspaces/<workspace>/batch/<job>/` in the files bucket (the prefix every
 * function's grant covers). The result files themselves are ordinary File objects (objectKeyFor).
 */
export const batchKeys = {
  prefix: (workspace: string, jobId: string) => `workspaces/${workspace}/batch/${jobId}/`,
  manifest: (workspace: string, jobId: string) => `${batchKeys.prefix(workspace, jobId)}manifest.json`,
  chunk: (workspace: string, jobId: string, index: number) => `${batchKeys.prefix(workspace, jobId)}chunks/${index}.jsonl`,
  results: (workspace: string, jobId: string, index: number) => `${batchKeys.prefix(workspace, jobId)}results/${index}.jsonl`,
};

const isMissing = (error: unknown) => (error as Error).name === "NoSuchKey" || (error as Error).name === "NotFound";

/** S3 DeleteObjects takes at most this many keys per call. */
const DELETE_BATCH = 1000;

export const batchBlobs = {
  async put(key: string, body: string, contentType = "application/jsonl"): Promise<void> {
    await s3.send(new PutObjectCommand({ Bucket: filesBucket(), Key: key, Body: body, ContentType: contentType }));
  },

  /** The object as text, or undefined when there is none. Only for objects of bounded size (a chunk, a manifest). */
  async text(key: string): Promise<string | undefined> {
    try {
      const out = await s3.send(new GetObjectCommand({ Bucket: filesBucket(), Key: key }));
      return await out.Body!.transformToString("utf-8");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  },

  /** Deletes every key (absent ones too: S3 does not mind). */
  async removeAll(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const out = await s3.send(
        new DeleteObjectsCommand({ Bucket: filesBucket(), Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      if (out.Errors?.length) throw new Error(`S3 did not delete ${out.Errors.length} objects (first: ${out.Errors[0]!.Key}: ${out.Errors[0]!.Code})`);
    }
  },
};

/** S3 takes at least 5 MiB per part except the last; a bigger part means fewer requests for big files. */
export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;

/**
 * Writes a JSONL object line by line without holding it: lines are buffered up to one part, then sent
 * as a multipart upload part. An object that stays under one part is sent with one PUT at close, and
 * nothing at all is written when no line was.
 */
export class JsonlObjectWriter {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private uploadId: string | undefined;
  private readonly parts: { PartNumber: number; ETag: string }[] = [];
  bytes = 0;
  lines = 0;

  constructor(
    readonly key: string,
    private readonly partBytes = DEFAULT_PART_BYTES,
  ) {}

  async write(line: string): Promise<void> {
    const bytes = Buffer.from(`${line}\n`, "utf8");
    this.buffered.push(bytes);
    this.bufferedBytes += bytes.length;
    this.bytes += bytes.length;
    this.lines += 1;
    if (this.bufferedBytes >= this.partBytes) await this.sendPart();
  }

  /** Finishes the object; false when there was nothing to write (and nothing was written). */
  async close(): Promise<boolean> {
    if (this.uploadId === undefined) {
      if (this.bytes === 0) return false;
      await s3.send(new PutObjectCommand({ Bucket: filesBucket(), Key: this.key, Body: this.take(), ContentType: "application/jsonl" }));
      return true;
    }
    if (this.bufferedBytes > 0) await this.sendPart();
    await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: filesBucket(), Key: this.key, UploadId: this.uploadId, MultipartUpload: { Parts: this.parts } }),
    );
    return true;
  }

  /** Drops an unfinished multipart upload, so its parts are not kept (and billed) by S3. */
  async abort(): Promise<void> {
    if (this.uploadId === undefined) return;
    await s3.send(new AbortMultipartUploadCommand({ Bucket: filesBucket(), Key: this.key, UploadId: this.uploadId }));
    this.uploadId = undefined;
  }

  private take(): Buffer {
    const body = Buffer.concat(this.buffered);
    this.buffered = [];
    this.bufferedBytes = 0;
    return body;
  }

  private async sendPart(): Promise<void> {
    if (this.uploadId === undefined) {
      const out = await s3.send(new CreateMultipartUploadCommand({ Bucket: filesBucket(), Key: this.key, ContentType: "application/jsonl" }));
      if (!out.UploadId) throw new Error("S3 returned no UploadId");
      this.uploadId = out.UploadId;
    }
    const PartNumber = this.parts.length + 1;
    const out = await s3.send(new UploadPartCommand({ Bucket: filesBucket(), Key: this.key, UploadId: this.uploadId, PartNumber, Body: this.take() }));
    if (!out.ETag) throw new Error("S3 returned no ETag for a part");
    this.parts.push({ PartNumber, ETag: out.ETag });
  }
}
