import type { FileOut, FilePurpose, FileSource, FileVisibility, SampleType } from "../schemas/file.js";
import { MAX_FILE_BYTES } from "../schemas/file.js";
import { BadRequest, PayloadTooLarge } from "./errors.js";
import type { Caller } from "./caller.js";

/** A file as stored: the wire fields plus ownership and where the bytes live. */
export interface FileRecord {
  id: string;
  workspace: string;
  organization: string;
  owner: string;
  filename: string;
  bytes: number;
  createdAt: number;
  purpose: FilePurpose;
  sampleType: SampleType;
  source: FileSource;
  mimetype: string | null;
  numLines: number | null;
  signature: string | null;
  expiresAt: number | null;
  visibility: FileVisibility;
  objectKey: string;
}

const MIMETYPES: Record<string, string> = {
  jsonl: "application/jsonl",
  json: "application/json",
  txt: "text/plain",
  csv: "text/csv",
  md: "text/markdown",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  wav: "audio/wav",
  mp3: "audio/mpeg",
};

const GENERIC = new Set(["", "application/octet-stream", "binary/octet-stream"]);

export const extensionOf = (filename: string): string => {
  const dot = filename.lastIndexOf(".");
  return dot < 0 ? "" : filename.slice(dot + 1).toLowerCase();
};

/** The declared type unless it is generic; then the one the extension implies (the SDK sends .jsonl as octet-stream). */
export function mimetypeFor(filename: string, declared: string | null | undefined): string | null {
  const given = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  if (!GENERIC.has(given)) return given;
  return MIMETYPES[extensionOf(filename)] ?? (given || null);
}

export const isJsonl = (filename: string, mimetype: string | null): boolean =>
  extensionOf(filename) === "jsonl" || mimetype === "application/jsonl" || mimetype === "application/x-ndjson";

/**
 * JSON lines judged by content: at least one line, and every non-blank line a JSON object. How a blob
 * without a `.jsonl` name (the SDK's `files.upload({ file: blob })`) still counts as JSONL.
 */
export function looksLikeJsonl(content: Uint8Array | string): boolean {
  const sniffer = new JsonlSniffer();
  sniffer.push(typeof content === "string" ? Buffer.from(content, "utf8") : content);
  return sniffer.result();
}

/**
 * The longest line the content check holds while it waits for the line's end. A longer line (a binary
 * file without newlines, say) is judged not JSON lines, so judging a 512 MB stream holds at most this much.
 */
export const MAX_JSONL_LINE_BYTES = 8 * 1024 * 1024;

/**
 * `looksLikeJsonl` chunk by chunk, for streamed uploads: each line is parsed when its newline arrives and
 * only the unfinished line is held. Once a line fails, the rest is not looked at.
 */
export class JsonlSniffer {
  private partial: Uint8Array[] = [];
  private partialBytes = 0;
  private lines = 0;
  private failed = false;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });

  push(chunk: Uint8Array): void {
    let start = 0;
    while (!this.failed) {
      const end = chunk.indexOf(0x0a, start);
      if (end < 0) {
        this.hold(chunk.subarray(start));
        return;
      }
      this.hold(chunk.subarray(start, end));
      this.endLine();
      start = end + 1;
    }
  }

  /** True when the content so far is JSON lines; call once the last chunk was pushed. */
  result(): boolean {
    if (this.partialBytes > 0) this.endLine();
    return !this.failed && this.lines > 0;
  }

  private hold(bytes: Uint8Array): void {
    if (bytes.length === 0 || this.failed) return;
    this.partialBytes += bytes.length;
    if (this.partialBytes > MAX_JSONL_LINE_BYTES) this.fail();
    else this.partial.push(bytes.slice());
  }

  private endLine(): void {
    if (this.failed) return;
    const bytes = this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial);
    this.partial = [];
    this.partialBytes = 0;
    let line: string;
    try {
      line = this.decoder.decode(bytes);
    } catch {
      return this.fail();
    }
    if (!line.trim()) return;
    try {
      const value: unknown = JSON.parse(line);
      if (value === null || typeof value !== "object" || Array.isArray(value)) return this.fail();
    } catch {
      return this.fail();
    }
    this.lines += 1;
  }

  private fail(): void {
    this.failed = true;
    this.partial = [];
    this.partialBytes = 0;
  }
}

/** JSONL by name or declared type, or (when the bytes are at hand) by content. */
export const isJsonlUpload = (filename: string, mimetype: string | null, content?: Uint8Array): boolean =>
  isJsonl(filename, mimetype) || (content !== undefined && looksLikeJsonl(content));

export function sampleTypeFor(purpose: FilePurpose): SampleType {
  return purpose === "batch" ? "batch_request" : "instruct";
}

/**
 * Rules every upload passes, inline or presigned, before any byte is stored. `fine-tune` files must be
 * JSON lines: by name or declared type, or by content when the bytes are given (the inline route).
 */
export function checkUpload(filename: string, bytes: number, purpose: FilePurpose, jsonl: boolean = isJsonl(filename, null)): void {
  if (bytes > MAX_FILE_BYTES) {
    throw new PayloadTooLarge(`File is ${bytes} bytes; the limit is ${MAX_FILE_BYTES} bytes (512 MB)`, "file_too_large");
  }
  if (purpose === "fine-tune" && !jsonl) {
    throw new BadRequest("Files with purpose 'fine-tune' must be JSON lines (a .jsonl name, or every line a JSON object)", "invalid_file_type", "file");
  }
  if (/[\u0000-\u001f/\\]/.test(filename)) {
    throw new BadRequest("The file name may not contain path separators or control characters", "invalid_filename", "file");
  }
}

/** Lines of a JSONL document, not counting a trailing newline or blank lines (the same count for every route). */
export function countLines(content: Uint8Array | string): number {
  const counter = new LineCounter();
  counter.push(typeof content === "string" ? Buffer.from(content, "utf8") : content);
  return counter.total();
}

/** Counts non-blank lines across chunks without holding the whole file. */
export class LineCounter {
  private count = 0;
  private lineHasText = false;

  push(chunk: Uint8Array): void {
    for (const byte of chunk) {
      if (byte === 0x0a) {
        if (this.lineHasText) this.count += 1;
        this.lineHasText = false;
      } else if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) {
        this.lineHasText = true;
      }
    }
  }

  total(): number {
    return this.count + (this.lineHasText ? 1 : 0);
  }
}

export const expiresAtFor = (createdAt: number, expiryHours: number | null | undefined): number | null =>
  expiryHours ? createdAt + expiryHours * 3600 : null;

export const isExpired = (file: Pick<FileRecord, "expiresAt">, now: number): boolean =>
  file.expiresAt !== null && file.expiresAt <= now;

/** `user` files belong to their creator; everyone in the workspace sees `workspace` files. */
export const visibleTo = (file: Pick<FileRecord, "visibility" | "owner">, caller: Pick<Caller, "principal">): boolean =>
  file.visibility === "workspace" || file.owner === caller.principal;

export const objectKeyFor = (workspace: string, fileId: string): string => `workspaces/${workspace}/files/${fileId}`;

export function toFileOut(file: FileRecord): FileOut {
  return {
    id: file.id,
    object: "file",
    bytes: file.bytes,
    created_at: file.createdAt,
    filename: file.filename,
    purpose: file.purpose,
    sample_type: file.sampleType,
    source: file.source,
    num_lines: file.numLines,
    mimetype: file.mimetype,
    signature: file.signature,
    expires_at: file.expiresAt,
    visibility: file.visibility,
  };
}

/** A large upload under way (POST /v1/files/uploads): S3 multipart parts not yet joined into a file. */
export interface PendingUpload {
  id: string;
  workspace: string;
  organization: string;
  owner: string;
  s3UploadId: string;
  objectKey: string;
  filename: string;
  bytes: number;
  purpose: FilePurpose;
  visibility: FileVisibility;
  expiryHours: number | null;
  mimetype: string | null;
  partSize: number;
  partCount: number;
  /** Unix seconds: the part URLs stop working and the record is removed by TTL. */
  expiresAt: number;
}
