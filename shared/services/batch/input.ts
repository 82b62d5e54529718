import { createHash } from "node:crypto";
import { fileBlobs } from "../../blobs/files.js";
import type { BatchJobRecord } from "../../domain/batch-rules.js";
import { fileStore } from "../../store/files.js";
import { BadRequest, NotFound } from "../../domain/errors.js";

/**
 * The requests of a batch job: JSONL lines `{"custom_id": "…", "body": {…}}` in the job's input files or
 * in the JSONL object its inline `requests` were written to. Create validates every line with these
 * readers (a bad file is refused then, naming its first bad line), and the engine's Start task reads the
 * same lines with them to split the job into chunks.
 */

/** The same limit as an inline request's custom_id (shared/schemas/batch.ts). */
export const MAX_CUSTOM_ID_LENGTH = 512;

/**
 * One line is one request body; a line longer than this is refused rather than buffered, so a file
 * without newlines cannot exhaust the function's memory.
 */
export const MAX_REQUEST_LINE_BYTES = 10 * 1024 * 1024;

/** Where a job's requests are: an input file's object, or the object holding its inline `requests`. */
export interface RequestSource {
  /** S3 key of the JSONL object. */
  key: string;
  /** The File the lines come from; null for the job's inline requests (line n is `requests[n-1]`). */
  fileId: string | null;
}

export interface RequestLine {
  custom_id: string;
  body: Record<string, unknown>;
  /** 1-based line number in its source, counting blank lines, as an editor shows it. */
  line: number;
}

/** A request line that is not what a batch job takes: 400 `invalid_batch_input`, naming where it is. */
export class BatchInputError extends BadRequest {
  constructor(message: string, source: Pick<RequestSource, "fileId">) {
    super(message, "invalid_batch_input", source.fileId === null ? "requests" : "input_files");
  }
}

/** How a message names a line: the file and line number, or the inline request's index. */
export const describeLine = (source: Pick<RequestSource, "fileId">, line: number): string =>
  source.fileId === null ? `requests[${line - 1}]` : `Line ${line} of file '${source.fileId}'`;

const SHAPE = 'each line must be a JSON object {"custom_id": "<unique id>", "body": {…}}';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** One line of text, as `{custom_id, body}`; anything else is a BatchInputError naming the line. */
export function parseRequestLine(text: string, line: number, source: Pick<RequestSource, "fileId">): RequestLine {
  const where = describeLine(source, line);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BatchInputError(`${where} is not valid JSON (${(error as Error).message}); ${SHAPE}`, source);
  }
  if (!isObject(value)) throw new BatchInputError(`${where} is not a JSON object; ${SHAPE}`, source);
  const { custom_id: customId, body } = value;
  if (typeof customId !== "string" || customId.length === 0) {
    throw new BatchInputError(`${where} has no custom_id (a non-empty string); ${SHAPE}`, source);
  }
  if (customId.length > MAX_CUSTOM_ID_LENGTH) {
    throw new BatchInputError(`${where} has a custom_id longer than ${MAX_CUSTOM_ID_LENGTH} characters`, source);
  }
  if (!isObject(body)) throw new BatchInputError(`${where} has no body (a JSON object: the request to the endpoint); ${SHAPE}`, source);
  return { custom_id: customId, body, line };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The lines of a byte stream, split on LF (a CR before it is dropped), decoded as UTF-8, numbered from 1.
 * Holds one line at a time, however the chunks cut it.
 */
export async function* splitLines(
  chunks: AsyncIterable<Uint8Array>,
  source: Pick<RequestSource, "fileId">,
  maxLineBytes = MAX_REQUEST_LINE_BYTES,
): AsyncGenerator<{ text: string; line: number }> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let line = 0;
  const decode = (parts: Uint8Array[], n: number): string => {
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new BatchInputError(`${describeLine(source, n)} is not valid UTF-8`, source);
    }
    if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return text.endsWith("\r") ? text.slice(0, -1) : text;
  };
  const tooLong = (n: number) =>
    new BatchInputError(`${describeLine(source, n)} is longer than ${maxLineBytes} bytes; one line holds one request`, source);

  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, end);
      if (pendingBytes + piece.length > maxLineBytes) throw tooLong(line + 1);
      line += 1;
      const text = decode([...pending, piece], line);
      pending = [];
      pendingBytes = 0;
      yield { text, line };
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      pendingBytes += rest.length;
      if (pendingBytes > maxLineBytes) throw tooLong(line + 1);
      pending.push(rest);
    }
  }
  if (pendingBytes > 0) {
    line += 1;
    yield { text: decode(pending, line), line };
  }
}

/** The request lines of a byte stream; blank lines are skipped but keep their numbers. */
export async function* parseRequestLines(chunks: AsyncIterable<Uint8Array>, source: Pick<RequestSource, "fileId">): AsyncGenerator<RequestLine> {
  for await (const { text, line } of splitLines(chunks, source)) {
    if (text.trim() === "") continue;
    yield parseRequestLine(text, line, source);
  }
}

/** The object's bytes; a File whose object is gone is not found, like the File itself. */
async function* objectChunks(source: RequestSource): AsyncGenerator<Uint8Array> {
  try {
    yield* fileBlobs.read(source.key);
  } catch (error) {
    if ((error as Error).name !== "NoSuchKey") throw error;
    if (source.fileId !== null) throw new NotFound("file", source.fileId);
    throw new Error(`The inline requests of a batch job are missing (${source.key})`);
  }
}

/** Streams one source's request lines from S3, never holding the whole object. */
export function readRequestLines(source: RequestSource): AsyncGenerator<RequestLine> {
  return parseRequestLines(objectChunks(source), source);
}

/** Ids up to this length are kept as they are; longer ones as a digest, so memory stays bounded per request. */
const RAW_ID_LENGTH = 32;

/** custom_ids seen so far across all of a job's sources, with where each was first used. */
export class CustomIds {
  private readonly raw = new Map<string, number>();
  /** 96-bit digests of the longer ids. */
  private readonly digests = new Map<string, number>();
  private readonly sources: Pick<RequestSource, "fileId">[] = [];

  /** Records `customId` at `line` of `source`; a repeat is a BatchInputError naming both places. */
  add(customId: string, source: Pick<RequestSource, "fileId">, line: number): void {
    const [seen, key] = customId.length <= RAW_ID_LENGTH ? [this.raw, customId] : [this.digests, createHash("sha256").update(customId).digest("base64").slice(0, 16)];
    const first = seen.get(key);
    if (first !== undefined) {
      const earlier = describeLine(this.sources[Math.floor(first / 2 ** 32)]!, first % 2 ** 32);
      throw new BatchInputError(`${describeLine(source, line)} repeats custom_id '${customId}' (first used: ${earlier}); custom_ids must be unique within a job`, source);
    }
    let index = this.sources.length - 1;
    if (index < 0 || this.sources[index]!.fileId !== source.fileId) {
      index = this.sources.findIndex((s) => s.fileId === source.fileId);
      if (index < 0) index = this.sources.push(source) - 1;
    }
    // Where it was first used, packed in one number: the source's index and the line.
    seen.set(key, index * 2 ** 32 + line);
  }

  get size(): number {
    return this.raw.size + this.digests.size;
  }
}

/** Every request of the job's sources in order, checking that no custom_id repeats across them. */
export async function* readJobRequests(sources: RequestSource[], ids = new CustomIds()): AsyncGenerator<RequestLine & { source: RequestSource }> {
  for (const source of sources) {
    for await (const request of readRequestLines(source)) {
      ids.add(request.custom_id, source, request.line);
      yield { ...request, source };
    }
  }
}

/** Reads every line of the sources (the first bad line or repeated custom_id throws) and counts the requests. */
export async function countJobRequests(sources: RequestSource[], ids = new CustomIds()): Promise<number> {
  let count = 0;
  for await (const _ of readJobRequests(sources, ids)) count += 1;
  return count;
}

/** Where a stored job's requests are, in order. An input file deleted since the job was created is not found. */
export async function requestSourcesOf(job: Pick<BatchJobRecord, "workspace" | "inputFiles" | "inlineKey">): Promise<RequestSource[]> {
  if (job.inlineKey) return [{ key: job.inlineKey, fileId: null }];
  const sources: RequestSource[] = [];
  for (const fileId of job.inputFiles) {
    const file = await fileStore.get(job.workspace, fileId);
    if (!file) throw new NotFound("file", fileId);
    sources.push({ key: file.objectKey, fileId });
  }
  return sources;
}
