import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { filesBucket } from "../config.js";
import { LineCounter } from "../domain/file-rules.js";
import { s3 } from "./client.js";

/** How long the S3 URL behind /content and the download route lives: just long enough to start the transfer. */
export const DOWNLOAD_URL_SECONDS = 300;

const attachment = (filename: string) => `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`;

export const fileBlobs = {
  async put(key: string, body: Buffer, contentType: string | null): Promise<void> {
    await s3.send(
      new PutObjectCommand({ Bucket: filesBucket(), Key: key, Body: body, ContentType: contentType ?? "application/octet-stream" }),
    );
  },

  async remove(key: string): Promise<void> {
    await s3.send(new DeleteObjectCommand({ Bucket: filesBucket(), Key: key }));
  },

  /** A short-lived URL that serves the bytes as application/octet-stream, the type the SDKs accept for downloads. */
  async downloadUrl(key: string, filename: string): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: filesBucket(),
      Key: key,
      ResponseContentType: "application/octet-stream",
      ResponseContentDisposition: attachment(filename),
    });
    return getSignedUrl(s3, command, { expiresIn: DOWNLOAD_URL_SECONDS });
  },

  /** The origin presigned URLs point at (S3's, or the local stand-in's): a browser page must be allowed to reach it. */
  async origin(): Promise<string> {
    return new URL(await getSignedUrl(s3, new GetObjectCommand({ Bucket: filesBucket(), Key: "origin" }), { expiresIn: 60 })).origin;
  },

  async startMultipart(key: string, contentType: string | null): Promise<string> {
    const out = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: filesBucket(), Key: key, ContentType: contentType ?? "application/octet-stream" }),
    );
    if (!out.UploadId) throw new Error("S3 returned no UploadId");
    return out.UploadId;
  },

  async partUrl(key: string, uploadId: string, partNumber: number, expiresIn: number): Promise<string> {
    const command = new UploadPartCommand({ Bucket: filesBucket(), Key: key, UploadId: uploadId, PartNumber: partNumber });
    return getSignedUrl(s3, command, { expiresIn });
  },

  async completeMultipart(key: string, uploadId: string, parts: { part_number: number; etag: string }[]): Promise<void> {
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: filesBucket(),
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.part_number, ETag: p.etag })) },
      }),
    );
  },

  async uploadPart(key: string, uploadId: string, partNumber: number, body: Uint8Array): Promise<string> {
    const out = await s3.send(new UploadPartCommand({ Bucket: filesBucket(), Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body }));
    if (!out.ETag) throw new Error("S3 returned no ETag for an uploaded part");
    return out.ETag;
  },

  /** An object written chunk by chunk as the bytes arrive, holding at most one part (StreamedObject). */
  writer(key: string, contentType: string | null): StreamedObject {
    return new StreamedObject(key, contentType);
  },

  async abortMultipart(key: string, uploadId: string): Promise<void> {
    await s3.send(new AbortMultipartUploadCommand({ Bucket: filesBucket(), Key: key, UploadId: uploadId }));
  },

  async exists(key: string): Promise<boolean> {
    try {
      await s3.send(new HeadObjectCommand({ Bucket: filesBucket(), Key: key }));
      return true;
    } catch (error) {
      if ((error as Error).name === "NotFound" || (error as Error).name === "NoSuchKey") return false;
      throw error;
    }
  },

  async size(key: string): Promise<number> {
    const out = await s3.send(new HeadObjectCommand({ Bucket: filesBucket(), Key: key }));
    return out.ContentLength ?? 0;
  },

  /**
   * The object's bytes chunk by chunk as S3 sends them, for readers that must never hold a whole file
   * (up to 512 MB). Stopping early (return or throw in the consumer) closes the download.
   */
  async *read(key: string): AsyncGenerator<Uint8Array> {
    const out = await s3.send(new GetObjectCommand({ Bucket: filesBucket(), Key: key }));
    yield* out.Body as AsyncIterable<Uint8Array>;
  },

  /** Streams the object once to count its JSONL lines, never holding more than one chunk. */
  async countLines(key: string): Promise<number> {
    const out = await s3.send(new GetObjectCommand({ Bucket: filesBucket(), Key: key }));
    const counter = new LineCounter();
    for await (const chunk of out.Body as AsyncIterable<Uint8Array>) counter.push(chunk);
    return counter.total();
  },
};

/** S3 wants parts of at least 5 MiB (all but the last); 8 MiB parts make 64 of them for a 512 MB file. */
export const STREAM_PART_BYTES = 8 * 1024 * 1024;

/**
 * An object written as its bytes arrive: chunks fill one part buffer, each full part is uploaded before
 * `write` resolves (the caller's await is the backpressure), so memory stays one part whatever the size
 * (and less for a file smaller than a part).
 * An object smaller than one part is a single PutObject; a larger one an S3 multipart upload, which
 * `abort` cancels so that no parts are left behind (and `finish` removes nothing: the object then exists).
 */
export class StreamedObject {
  private buffer: Buffer;
  private filled = 0;
  private uploadId: string | undefined;
  private readonly parts: { part_number: number; etag: string }[] = [];
  private done = false;

  constructor(
    readonly key: string,
    private readonly contentType: string | null,
    private readonly partBytes = STREAM_PART_BYTES,
  ) {
    this.buffer = Buffer.alloc(0);
  }

  async write(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(chunk.length - offset, this.partBytes - this.filled);
      this.reserve(this.filled + take);
      // Copied: the parser may reuse the memory behind the chunks it hands out.
      this.buffer.set(chunk.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.partBytes) await this.flushPart();
    }
  }

  async finish(): Promise<void> {
    if (this.uploadId === undefined) {
      await fileBlobs.put(this.key, this.buffer.subarray(0, this.filled), this.contentType);
    } else {
      if (this.filled > 0) await this.flushPart();
      await fileBlobs.completeMultipart(this.key, this.uploadId, this.parts);
    }
    this.done = true;
    this.release();
  }

  /** Cancels what was started: the multipart upload's parts, or nothing if no part was sent yet. */
  async abort(): Promise<void> {
    this.release();
    if (this.done || this.uploadId === undefined) return;
    const uploadId = this.uploadId;
    this.uploadId = undefined;
    await fileBlobs.abortMultipart(this.key, uploadId);
  }

  private async flushPart(): Promise<void> {
    this.uploadId ??= await fileBlobs.startMultipart(this.key, this.contentType);
    const partNumber = this.parts.length + 1;
    // Awaited before `write` refills the buffer, so S3 (and its retries) read the part as it was.
    const etag = await fileBlobs.uploadPart(this.key, this.uploadId, partNumber, this.buffer.subarray(0, this.filled));
    this.parts.push({ part_number: partNumber, etag });
    this.filled = 0;
  }

  /** The part buffer grows as bytes come (doubling, from 64 KiB to one part), so a small file holds little. */
  private reserve(bytes: number): void {
    if (this.buffer.length >= bytes) return;
    const grown = Buffer.allocUnsafe(Math.min(this.partBytes, Math.max(bytes, 2 * this.buffer.length, 64 * 1024)));
    this.buffer.copy(grown, 0, 0, this.filled);
    this.buffer = grown;
  }

  private release(): void {
    this.buffer = Buffer.alloc(0);
    this.filled = 0;
  }
}
