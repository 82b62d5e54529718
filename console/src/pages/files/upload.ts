/**
 * Uploads with progress. A file up to the inline route's limit goes through POST /v1/files (multipart form);
 * a larger one through the presigned multipart extension: POST /v1/files/uploads hands out part URLs, each part
 * is PUT straight to storage (its ETag read from the answer: the bucket's CORS exposes it, infra/files-cors.ts),
 * then POST /v1/files/uploads/{id}/complete assembles them (docs: shared/services/files/files.ts).
 * XMLHttpRequest, not fetch: only it reports upload progress.
 */
import { ApiFailure, api, messageOf, urlOf } from "../../api.js";
import { signedInKey } from "../../session.js";

/** shared/services/files/files.ts INLINE_UPLOAD_MAX_BYTES: what one Lambda invocation can carry (4 MiB). */
export const INLINE_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;

export interface UploadedFile {
  id: string;
  filename: string;
  bytes: number;
  purpose: string;
}

interface StartedUpload {
  id: string;
  file_id: string;
  part_size: number;
  parts: { part_number: number; url: string }[];
}

export interface UploadOptions {
  purpose: string;
  /** Bytes sent so far, of the file's total. */
  onProgress: (sent: number, total: number) => void;
  signal?: AbortSignal;
}

/** One XMLHttpRequest: resolves with the request when it answers 2xx, rejects with ApiFailure otherwise. */
function send(method: string, url: string, body: XMLHttpRequestBodyInit, options: { headers?: Record<string, string>; onProgress?: (sent: number) => void; signal?: AbortSignal }): Promise<XMLHttpRequest> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    for (const [name, value] of Object.entries(options.headers ?? {})) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => options.onProgress?.(event.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr);
      let parsed: unknown = xhr.responseText;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        // Not JSON (storage answers XML): keep the text.
      }
      reject(new ApiFailure(xhr.status, typeof parsed === "string" && parsed ? `HTTP ${xhr.status}: ${parsed.slice(0, 200)}` : messageOf(xhr.status, parsed), parsed));
    };
    xhr.onerror = () => reject(new Error(`The upload to ${new URL(url).host} failed (network or CORS)`));
    xhr.onabort = () => reject(new DOMException("The upload was stopped", "AbortError"));
    options.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

export async function uploadFile(file: File, options: UploadOptions): Promise<UploadedFile> {
  return file.size <= INLINE_UPLOAD_MAX_BYTES ? uploadInline(file, options) : uploadInParts(file, options);
}

async function uploadInline(file: File, { purpose, onProgress, signal }: UploadOptions): Promise<UploadedFile> {
  const form = new FormData();
  // As the SDK sends it: the file part, then the text fields.
  form.append("file", file, file.name);
  form.append("purpose", purpose);
  const key = signedInKey();
  const xhr = await send("POST", urlOf("/v1/files"), form, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
    // The form's framing makes the body a little larger than the file: report the file's share of it.
    onProgress: (sent) => onProgress(Math.min(sent, file.size), file.size),
    signal,
  });
  onProgress(file.size, file.size);
  return JSON.parse(xhr.responseText) as UploadedFile;
}

async function uploadInParts(file: File, { purpose, onProgress, signal }: UploadOptions): Promise<UploadedFile> {
  const upload = await api.post<StartedUpload>("/v1/files/uploads", {
    filename: file.name,
    bytes: file.size,
    purpose,
    ...(/^[\x21-\x7e]+\/[\x21-\x7e]+$/.test(file.type) ? { mimetype: file.type } : {}),
  });
  const sent = new Array<number>(upload.parts.length).fill(0);
  const report = () => onProgress(sent.reduce((a, b) => a + b, 0), file.size);
  const parts: { part_number: number; etag: string }[] = [];
  // One part at a time: parts are 8 MiB or more, and a browser tab has little to gain from parallel PUTs here.
  for (const [i, part] of upload.parts.entries()) {
    const start = (part.part_number - 1) * upload.part_size;
    const blob = file.slice(start, Math.min(start + upload.part_size, file.size));
    const xhr = await send("PUT", part.url, blob, {
      onProgress: (loaded) => {
        sent[i] = loaded;
        report();
      },
      signal,
    });
    const etag = xhr.getResponseHeader("ETag");
    if (!etag) throw new Error("Storage did not expose the part's ETag (the bucket's CORS rule must expose it)");
    sent[i] = blob.size;
    report();
    parts.push({ part_number: part.part_number, etag });
  }
  return api.post<UploadedFile>(`/v1/files/uploads/${encodeURIComponent(upload.id)}/complete`, { parts });
}
