import { randomUUID } from "node:crypto";
import { fileBlobs } from "../../blobs/files.js";
import type { Caller } from "../../domain/caller.js";
import type { CompleteUploadBody, CreateUploadBody, FileListQuery, UploadForm } from "../../schemas/file.js";
import { fileStore } from "../../store/files.js";
import { secretStore } from "../../store/tenancy.js";
import { BadRequest, Conflict, Forbidden, NotFound, PayloadTooLarge } from "../../domain/errors.js";
import {
  checkUpload,
  countLines,
  expiresAtFor,
  isExpired,
  isJsonl,
  isJsonlUpload,
  mimetypeFor,
  objectKeyFor,
  sampleTypeFor,
  visibleTo,
  type FileRecord,
  type PendingUpload,
} from "../../domain/file-rules.js";
import { signDownload, verifyDownload } from "../../domain/signed-urls.js";

/**
 * What one Lambda invocation can carry: 6 MB of event, with the body base64-encoded by API Gateway.
 * Larger files take the presigned multipart route.
 */
export const INLINE_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;
export const LARGE_UPLOAD_ROUTE = "POST /v1/files/uploads";

export const inlineTooLarge = (bytes?: number) =>
  new PayloadTooLarge(
    `${bytes ? `The file is ${bytes} bytes, more` : "The request is larger"} than the inline upload route takes (${INLINE_UPLOAD_MAX_BYTES} bytes). ` +
      `Upload larger files (up to 512 MB) with ${LARGE_UPLOAD_ROUTE}, which returns presigned S3 part URLs.`,
    "use_large_upload",
  );

/** Presigned multipart: parts of at least 8 MiB (S3 wants 5 MiB) and never more than 10,000 of them. */
const MIN_PART_BYTES = 8 * 1024 * 1024;
const PART_URL_SECONDS = 3600;

const nowSeconds = () => Math.floor(Date.now() / 1000);

function newRecord(caller: Caller, fields: { id: string; filename: string; bytes: number; purpose: FileRecord["purpose"]; visibility: FileRecord["visibility"]; mimetype: string | null; numLines: number | null; expiryHours: number | null | undefined }, createdAt: number): FileRecord {
  return {
    id: fields.id,
    workspace: caller.workspace,
    organization: caller.organization,
    owner: caller.principal,
    filename: fields.filename,
    bytes: fields.bytes,
    createdAt,
    purpose: fields.purpose,
    sampleType: sampleTypeFor(fields.purpose),
    source: "upload",
    mimetype: fields.mimetype,
    numLines: fields.numLines,
    signature: null,
    expiresAt: expiresAtFor(createdAt, fields.expiryHours),
    visibility: fields.visibility,
    objectKey: objectKeyFor(caller.workspace, fields.id),
  };
}

export async function uploadInline(caller: Caller, form: UploadForm): Promise<FileRecord> {
  const { filename, content } = form.file;
  if (form.file.truncated || content.length > INLINE_UPLOAD_MAX_BYTES) throw inlineTooLarge(content.length);
  const mimetype = mimetypeFor(filename, form.file.mimetype);
  const jsonl = isJsonlUpload(filename, mimetype, content);
  checkUpload(filename, content.length, form.purpose, jsonl);
  const id = randomUUID();
  await fileBlobs.put(objectKeyFor(caller.workspace, id), content, mimetype);
  return recordUpload(caller, { id, filename, bytes: content.length, mimetype, numLines: jsonl ? countLines(content) : null }, form);
}

/**
 * The File record of bytes already stored under the file's object key (the inline route, the streaming
 * upload service): written once, and on any failure the bytes go too, so nothing is left half made.
 */
export async function recordUpload(
  caller: Caller,
  stored: { id: string; filename: string; bytes: number; mimetype: string | null; numLines: number | null },
  form: Pick<UploadForm, "purpose" | "visibility" | "expiry">,
): Promise<FileRecord> {
  const nowMs = Date.now();
  const file = newRecord(caller, { ...stored, purpose: form.purpose, visibility: form.visibility, expiryHours: form.expiry }, Math.floor(nowMs / 1000));
  let created: boolean;
  try {
    created = await fileStore.create(file, nowMs);
  } catch (error) {
    await fileBlobs.remove(file.objectKey);
    throw error;
  }
  if (!created) {
    // A fresh random id that exists already: nothing to answer but a failure, and the bytes go.
    await fileBlobs.remove(file.objectKey);
    throw new Error(`File id ${file.id} exists already`);
  }
  return file;
}

/** The caller's view of one file: another workspace's, someone else's private or an expired file is not found. */
export async function get(caller: Caller, id: string): Promise<FileRecord> {
  const file = await fileStore.get(caller.workspace, id);
  if (!file || !visibleTo(file, caller) || isExpired(file, nowSeconds())) throw new NotFound("file", id);
  return file;
}

export async function list(caller: Caller, query: FileListQuery) {
  return fileStore.list(
    caller.workspace,
    {
      principal: caller.principal,
      now: nowSeconds(),
      purpose: query.purpose,
      sampleTypes: query.sample_type,
      sources: query.source,
      mimetypes: query.mimetypes,
      search: query.search,
    },
    query.page,
    query.page_size,
    query.include_total,
  );
}

/** The record goes first, so a failure never leaves a record whose bytes are gone. */
export async function remove(caller: Caller, id: string): Promise<void> {
  const file = await get(caller, id);
  if (!(await fileStore.remove(file))) throw new NotFound("file", id);
  await fileBlobs.remove(file.objectKey);
}

export async function contentUrl(caller: Caller, id: string): Promise<string> {
  const file = await get(caller, id);
  return fileBlobs.downloadUrl(file.objectKey, file.filename);
}

/** A URL on our download route that works without a key for `hours`, independent of any AWS credentials. */
export async function signedUrl(caller: Caller, id: string, hours: number, downloadRouteUrl: string): Promise<string> {
  await get(caller, id);
  const token = signDownload(await secretStore.urlSigningSecret(), {
    workspace: caller.workspace,
    fileId: id,
    expiresAt: nowSeconds() + hours * 3600,
  });
  return `${downloadRouteUrl}?token=${token}`;
}

export async function redeemDownload(fileId: string, token: string): Promise<string> {
  const { current, previous } = await secretStore.urlSigningSecrets();
  const check = verifyDownload(previous ? [current, previous] : [current], token, nowSeconds());
  if (!check.ok) {
    throw new Forbidden(check.reason === "expired" ? "This signed URL has expired" : "This signed URL is not valid", `signed_url_${check.reason}`);
  }
  if (check.grant.fileId !== fileId) throw new Forbidden("This signed URL is not valid", "signed_url_bad_signature");
  const file = await fileStore.get(check.grant.workspace, fileId);
  if (!file || isExpired(file, nowSeconds())) throw new NotFound("file", fileId);
  return fileBlobs.downloadUrl(file.objectKey, file.filename);
}

export function partSizeFor(bytes: number): number {
  return Math.max(MIN_PART_BYTES, Math.ceil(bytes / 10_000));
}

export async function startUpload(caller: Caller, body: CreateUploadBody) {
  const mimetype = mimetypeFor(body.filename, body.mimetype);
  checkUpload(body.filename, body.bytes, body.purpose, isJsonl(body.filename, mimetype));
  const id = randomUUID();
  const objectKey = objectKeyFor(caller.workspace, id);
  const partSize = partSizeFor(body.bytes);
  const partCount = Math.ceil(body.bytes / partSize);
  const s3UploadId = await fileBlobs.startMultipart(objectKey, mimetype);
  const upload: PendingUpload = {
    id,
    workspace: caller.workspace,
    organization: caller.organization,
    owner: caller.principal,
    s3UploadId,
    objectKey,
    filename: body.filename,
    bytes: body.bytes,
    purpose: body.purpose,
    visibility: body.visibility,
    expiryHours: body.expiry ?? null,
    mimetype,
    partSize,
    partCount,
    expiresAt: nowSeconds() + PART_URL_SECONDS,
  };
  try {
    await fileStore.putUpload(upload);
  } catch (error) {
    await fileBlobs.abortMultipart(objectKey, s3UploadId);
    throw error;
  }
  const parts = await Promise.all(
    Array.from({ length: partCount }, async (_, i) => ({
      part_number: i + 1,
      url: await fileBlobs.partUrl(objectKey, s3UploadId, i + 1, PART_URL_SECONDS),
    })),
  );
  return { id, object: "file.upload" as const, file_id: id, part_size: partSize, parts, expires_at: upload.expiresAt };
}

/** Assembles the parts, checks the result as an inline upload would be checked, and creates the File. */
export async function completeUpload(caller: Caller, uploadId: string, body: CompleteUploadBody): Promise<FileRecord> {
  const upload = await fileStore.getUpload(caller.workspace, uploadId);
  if (!upload) {
    // The upload id is also the id of the file it becomes: once that exists, this upload was completed.
    const completed = await fileStore.get(caller.workspace, uploadId);
    if (completed?.owner === caller.principal) throw new Conflict(`Upload '${uploadId}' was already completed`, "upload_completed");
    throw new NotFound("upload", uploadId);
  }
  if (upload.owner !== caller.principal || upload.expiresAt <= nowSeconds()) throw new NotFound("upload", uploadId);
  const numbers = body.parts.map((p) => p.part_number);
  if (new Set(numbers).size !== numbers.length || numbers.some((n) => n > upload.partCount)) {
    throw new BadRequest(`parts must list each of the ${upload.partCount} part numbers at most once`, "invalid_parts", "parts");
  }
  await assemble(upload, [...body.parts].sort((a, b) => a.part_number - b.part_number));
  const bytes = await fileBlobs.size(upload.objectKey);
  if (bytes !== upload.bytes) {
    await discard(upload);
    const problem = `The uploaded parts hold ${bytes} bytes but the upload declared ${upload.bytes}`;
    if (bytes > upload.bytes) throw new PayloadTooLarge(problem, "upload_size_mismatch");
    throw new BadRequest(problem, "upload_size_mismatch", "parts");
  }
  const numLines = isJsonl(upload.filename, upload.mimetype) ? await fileBlobs.countLines(upload.objectKey) : null;
  const nowMs = Date.now();
  const file = newRecord(
    caller,
    { ...upload, numLines, expiryHours: upload.expiryHours },
    Math.floor(nowMs / 1000),
  );
  if (!(await fileStore.completeUpload({ ...file, objectKey: upload.objectKey }, nowMs, uploadId))) {
    throw new Conflict(`Upload '${uploadId}' was already completed`, "upload_completed");
  }
  return file;
}

/** Has S3 join the parts into the object. */
async function assemble(upload: PendingUpload, parts: CompleteUploadBody["parts"]): Promise<void> {
  try {
    await fileBlobs.completeMultipart(upload.objectKey, upload.s3UploadId, parts);
  } catch (error) {
    const name = (error as Error).name;
    if (name === "InvalidPart" || name === "InvalidPartOrder" || name === "EntityTooSmall") {
      throw new BadRequest(`S3 refused the parts: ${(error as Error).message}`, "invalid_parts", "parts");
    }
    if (name !== "NoSuchUpload") throw error;
    // The pending record still exists, so no File was recorded. An assembled object means an earlier
    // attempt got this far and its final write failed: carry on and record it. Otherwise another
    // completion is under way.
    if (!(await fileBlobs.exists(upload.objectKey))) {
      throw new Conflict(`Upload '${upload.id}' is being completed by another request`, "upload_completed");
    }
  }
}

async function discard(upload: PendingUpload): Promise<void> {
  await fileBlobs.remove(upload.objectKey);
  await fileStore.removeUpload(upload.workspace, upload.id);
}

let storageOrigin: Promise<string> | undefined;

/** Where presigned part and download URLs point: a page that uploads or downloads through them must be allowed to reach it. */
export const presignedOrigin = (): Promise<string> => (storageOrigin ??= fileBlobs.origin());
