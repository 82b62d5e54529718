import { randomUUID } from "node:crypto";
import { fileBlobs } from "../../blobs/files.js";
import type { Caller } from "../../domain/caller.js";
import { PayloadTooLarge } from "../../domain/errors.js";
import { checkUpload, isJsonl, JsonlSniffer, LineCounter, mimetypeFor, objectKeyFor, type FileRecord } from "../../domain/file-rules.js";
import { logger } from "../../observability/logger.js";
import { MAX_FILE_BYTES, type StreamedUploadForm } from "../../schemas/file.js";
import { recordUpload } from "./files.js";

/** A file part as it arrives: its name and declared type, then its bytes chunk by chunk. */
export interface IncomingFile {
  filename: string;
  mimetype: string | null;
  content: AsyncIterable<Uint8Array>;
}

/** A file part whose bytes are stored (under its object key) but that is not a File yet. */
export interface StagedFile {
  id: string;
  objectKey: string;
  filename: string;
  mimetype: string | null;
  bytes: number;
  /** JSON lines by name, declared type or content (the same judgement as the inline route's). */
  jsonl: boolean;
  numLines: number;
}

export const fileTooLarge = (limit: number = MAX_FILE_BYTES) =>
  new PayloadTooLarge(`The file is larger than the limit of ${limit} bytes (${Math.round(limit / (1024 * 1024))} MB)`, "file_too_large");

/**
 * Stage one of a streamed upload (the upload service, POST /v1/files): the file part's bytes go to S3 as
 * they arrive, holding one part at a time (shared/blobs/files.ts StreamedObject), while the lines are
 * counted and the content is judged JSON lines or not. Past `maxBytes` the upload stops with a 413. On
 * any failure nothing is left: the multipart upload is aborted.
 */
export async function stageFile(caller: Caller, file: IncomingFile, maxBytes: number = MAX_FILE_BYTES): Promise<StagedFile> {
  const id = randomUUID();
  const objectKey = objectKeyFor(caller.workspace, id);
  const mimetype = mimetypeFor(file.filename, file.mimetype);
  const byName = isJsonl(file.filename, mimetype);
  const sniffer = byName ? undefined : new JsonlSniffer();
  const lines = new LineCounter();
  const object = fileBlobs.writer(objectKey, mimetype);
  let bytes = 0;
  try {
    for await (const chunk of file.content) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw fileTooLarge(maxBytes);
      lines.push(chunk);
      sniffer?.push(chunk);
      await object.write(chunk);
    }
    await object.finish();
  } catch (error) {
    // The refusal is what the client hears; a failed abort is logged (the bucket's lifecycle rule removes
    // incomplete multipart uploads after a day).
    await object.abort().catch((abortError: unknown) => logger.warn("could not abort a streamed upload", { objectKey, error: abortError as Error }));
    throw error;
  }
  return { id, objectKey, filename: file.filename, mimetype, bytes, jsonl: byName || sniffer!.result(), numLines: lines.total() };
}

/**
 * Stage two: the rules that need the form's other fields (the SDK sends `purpose` after the file), then
 * the File record, as the inline route writes it. A refusal removes the staged bytes.
 */
export async function commitFile(caller: Caller, staged: StagedFile, form: StreamedUploadForm): Promise<FileRecord> {
  try {
    checkUpload(form.file.filename, staged.bytes, form.purpose, staged.jsonl);
  } catch (error) {
    await discardFile(staged);
    throw error;
  }
  const { id, filename, bytes, mimetype } = staged;
  return recordUpload(caller, { id, filename, bytes, mimetype, numLines: staged.jsonl ? staged.numLines : null }, form);
}

/** A staged file that will not become a File (an invalid form, a client that went away). */
export async function discardFile(staged: Pick<StagedFile, "objectKey">): Promise<void> {
  await fileBlobs.remove(staged.objectKey);
}
