import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { filesBucket } from "../config.js";
import type { ExtractedText } from "../domain/libraries/documents.js";
import { s3 } from "./client.js";
import { fileBlobs } from "./files.js";

const PARALLEL_DELETES = 16;

/** How long a document's signed URLs live: Mistral's 30 minutes. */
export const DOCUMENT_URL_SECONDS = 30 * 60;

/**
 * Library documents' objects in the files bucket (shared/domain/libraries/documents.ts `documentKeys`): the uploaded
 * bytes and the extracted text, under the library's workspace prefix that every function's files grant covers.
 */
export const documentBlobs = {
  /** The uploaded bytes: written as any file's (shared/blobs/files.ts). */
  put: fileBlobs.put,

  async bytes(key: string): Promise<Buffer> {
    const out = await s3.send(new GetObjectCommand({ Bucket: filesBucket(), Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  },

  async putText(key: string, text: ExtractedText): Promise<void> {
    await s3.send(new PutObjectCommand({ Bucket: filesBucket(), Key: key, Body: JSON.stringify(text), ContentType: "application/json" }));
  },

  /** The extracted text, or undefined when there is none (never processed, or not yet). */
  async text(key: string): Promise<ExtractedText | undefined> {
    try {
      const out = await s3.send(new GetObjectCommand({ Bucket: filesBucket(), Key: key }));
      return JSON.parse(await out.Body!.transformToString("utf8")) as ExtractedText;
    } catch (error) {
      if ((error as Error).name === "NoSuchKey" || (error as Error).name === "NotFound") return undefined;
      throw error;
    }
  },

  /** A URL anyone holding it may GET the object with, for DOCUMENT_URL_SECONDS. */
  async url(key: string, filename: string, contentType: string): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: filesBucket(),
      Key: key,
      ResponseContentType: contentType,
      ResponseContentDisposition: `inline; filename*=UTF-8''${encodeURIComponent(filename)}`,
    });
    return getSignedUrl(s3, command, { expiresIn: DOCUMENT_URL_SECONDS });
  },

  /** Deletes objects by key, a few at a time (a missing key is no error). */
  async remove(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += PARALLEL_DELETES) {
      await Promise.all(keys.slice(i, i + PARALLEL_DELETES).map((Key) => s3.send(new DeleteObjectCommand({ Bucket: filesBucket(), Key }))));
    }
  },
};
