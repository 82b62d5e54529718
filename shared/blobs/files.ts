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
