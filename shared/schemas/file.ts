import * as z from "zod";
import { repeated, queryBoolean } from "./query.js";
import { pageQuery, Uuid } from "./common.js";

export const FilePurpose = z.enum(["fine-tune", "batch", "ocr"]);
export const SampleType = z.enum(["pretrain", "instruct", "batch_request", "batch_result", "batch_error"]);
export const FileSource = z.enum(["upload", "repository", "mistral"]);
export const FileVisibility = z.enum(["workspace", "user"]);

export type FilePurpose = z.infer<typeof FilePurpose>;
export type SampleType = z.infer<typeof SampleType>;
export type FileSource = z.infer<typeof FileSource>;
export type FileVisibility = z.infer<typeof FileVisibility>;

/** Spec limit for one file, whichever route it arrives by. */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;

/** The File resource on the wire (upload, list items). */
export const FileOut = z.object({
  id: z.string(),
  object: z.literal("file"),
  bytes: z.number().int(),
  created_at: z.number().int(),
  filename: z.string(),
  purpose: FilePurpose,
  sample_type: SampleType,
  source: FileSource,
  num_lines: z.number().int().nullable(),
  mimetype: z.string().nullable(),
  signature: z.string().nullable(),
  expires_at: z.number().int().nullable(),
  visibility: FileVisibility,
});
export type FileOut = z.infer<typeof FileOut>;

export const RetrievedFileOut = FileOut.extend({ deleted: z.boolean() });

export const FileListOut = z.object({
  object: z.literal("list"),
  data: z.array(FileOut),
  total: z.number().int().nullable(),
});

export const FileDeletedOut = z.object({ id: z.string(), object: z.literal("file"), deleted: z.boolean() });

export const SignedUrlOut = z.object({ url: z.string() });

export const FileParams = z.object({ file_id: Uuid });

export const FileListQuery = z.object({
  ...pageQuery(100),
  include_total: queryBoolean(true),
  purpose: FilePurpose.optional(),
  sample_type: repeated(SampleType),
  source: repeated(FileSource),
  mimetypes: repeated(z.string().min(1)),
  search: z.string().min(1).max(256).optional(),
});
export type FileListQuery = z.infer<typeof FileListQuery>;

/** `expiry` on upload: hours until the file expires (see docs/decisions/0003-file-expiry.md). */
export const FileExpiryHours = z.coerce.number<string>().int().min(1).max(24 * 365);

export const SignedUrlQuery = z.object({
  expiry: z.coerce.number<string>().int().min(1).max(168).default(24),
});

/** The text fields of POST /v1/files's form (the SDK sends them after the file part). */
export const UploadFields = z.object({
  purpose: FilePurpose.default("fine-tune"),
  visibility: FileVisibility.default("workspace"),
  expiry: FileExpiryHours.optional(),
});

const uploadFile = <S extends z.ZodRawShape>(content: S) =>
  z.object({ filename: z.string().min(1).max(512), mimetype: z.string().optional(), ...content }, { message: "Expected a file part" });

/** The multipart form of POST /v1/files, after middy's parser: text fields are strings, the file an object. */
export const UploadForm = z.object({
  file: uploadFile({ content: z.instanceof(Buffer), truncated: z.boolean().optional() }),
  ...UploadFields.shape,
});
/** The same form as the streaming upload service reads it: the file part's bytes went to storage as they came. */
export const StreamedUploadForm = z.object({ file: uploadFile({}), ...UploadFields.shape });
export type StreamedUploadForm = z.infer<typeof StreamedUploadForm>;
export type UploadForm = z.infer<typeof UploadForm>;

/** Extension: start a presigned multipart upload for files too large for the inline route. */
export const CreateUploadBody = z.strictObject({
  filename: z.string().min(1).max(512),
  bytes: z.number().int().min(1).max(MAX_FILE_BYTES),
  purpose: FilePurpose.default("fine-tune"),
  visibility: FileVisibility.default("workspace"),
  expiry: z.number().int().min(1).max(24 * 365).nullish(),
  // Sent to S3 as the object's Content-Type header: a media type in printable ASCII, as HTTP headers carry.
  mimetype: z.string().min(1).max(255).regex(/^[\x21-\x7e]+\/[\x21-\x7e]+(\s*;[\x20-\x7e]*)?$/, "Expected a media type such as application/jsonl").nullish(),
});
export type CreateUploadBody = z.infer<typeof CreateUploadBody>;

export const UploadOut = z.object({
  id: z.string(),
  object: z.literal("file.upload"),
  file_id: z.string(),
  part_size: z.number().int(),
  parts: z.array(z.object({ part_number: z.number().int(), url: z.string() })),
  expires_at: z.number().int(),
});

export const UploadParams = z.object({ upload_id: Uuid });

export const CompleteUploadBody = z.strictObject({
  parts: z
    .array(z.strictObject({ part_number: z.number().int().min(1).max(10_000), etag: z.string().min(1) }))
    .min(1),
});
export type CompleteUploadBody = z.infer<typeof CompleteUploadBody>;

export const DownloadQuery = z.object({ token: z.string().min(1).max(2048) });
