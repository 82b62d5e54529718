import { createHash, randomBytes } from "node:crypto";
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { RunningApi } from "../../infra/local/server.js";
import type { FileOut } from "../../shared/schemas/file.js";
import type { TestTenant } from "./tenant.js";

/** What a test looks at in an answer: status, headers and the body (parsed when it is JSON). */
export interface ApiReply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export type Query = Record<string, string | number | boolean | (string | number)[] | undefined>;

export interface RequestOptions {
  query?: Query;
  json?: unknown;
  form?: FormData;
  /** The API key to send; `null` sends no Authorization header. Defaults to the client's key. */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface UploadFields {
  filename?: string;
  content?: string | Uint8Array;
  /** The file part's declared Content-Type. */
  type?: string;
  purpose?: string;
  visibility?: string;
  expiry?: number | string;
}

async function toReply(response: Response): Promise<ApiReply> {
  const text = await response.text();
  const isJson = (response.headers.get("content-type") ?? "").includes("json") && text !== "";
  return { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text };
}

function withQuery(url: string, query: Query | undefined): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
  }
  const text = params.toString();
  return text ? `${url}?${text}` : url;
}

export function uploadForm(fields: UploadFields): FormData {
  const form = new FormData();
  if (fields.content !== undefined || fields.filename !== undefined) {
    const content = fields.content ?? "{}\n";
    const blob = new Blob([typeof content === "string" ? content : new Uint8Array(content)], fields.type ? { type: fields.type } : {});
    form.append("file", blob, fields.filename ?? "data.jsonl");
  }
  if (fields.purpose !== undefined) form.append("purpose", fields.purpose);
  if (fields.visibility !== undefined) form.append("visibility", fields.visibility);
  if (fields.expiry !== undefined) form.append("expiry", String(fields.expiry));
  return form;
}

/** The Files API of one running server as one tenant sees it, over plain HTTP. */
export function filesClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  async function request(method: string, path: string, options: RequestOptions = {}): Promise<ApiReply> {
    const key = options.key === undefined ? tenant.key : options.key;
    const headers: Record<string, string> = { ...options.headers };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | FormData | undefined;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    } else if (options.form) {
      body = options.form;
    }
    const response = await fetch(withQuery(`${api.url}${path}`, options.query), { method, headers, body, redirect: "manual" });
    return toReply(response);
  }

  const expectOk = <T>(reply: ApiReply<T>, what: string): T => {
    if (reply.status !== 200) throw new Error(`${what} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  };

  const upload = (fields: UploadFields, options: RequestOptions = {}) => request("POST", "/v1/files", { ...options, form: uploadForm(fields) });

  return {
    request,
    upload,
    /** Uploads and returns the File, failing the test on anything but a 200. */
    uploaded: async (fields: UploadFields = {}): Promise<FileOut> => expectOk(await upload({ filename: "data.jsonl", ...fields }), "upload"),
    list: (query: Query = {}) => request("GET", "/v1/files", { query }),
    retrieve: (id: string) => request("GET", `/v1/files/${id}`),
    remove: (id: string) => request("DELETE", `/v1/files/${id}`),
    /** The 302 itself; follow `headers.location` to read the bytes. */
    content: (id: string) => request("GET", `/v1/files/${id}/content`),
    signedUrl: (id: string, expiry?: number) => request("GET", `/v1/files/${id}/url`, { query: { expiry } }),
    startUpload: (body: Record<string, unknown>) => request("POST", "/v1/files/uploads", { json: body }),
    completeUpload: (id: string, parts: { part_number: number; etag: string }[]) =>
      request("POST", `/v1/files/uploads/${id}/complete`, { json: { parts } }),
  };
}

export type FilesClient = ReturnType<typeof filesClient>;

export interface StartedUpload {
  id: string;
  object: "file.upload";
  file_id: string;
  part_size: number;
  parts: { part_number: number; url: string }[];
  expires_at: number;
}

/** PUTs each slice of `content` to its presigned part URL, as a client of the large-upload route does; returns what complete takes. */
export async function putParts(upload: StartedUpload, content: Uint8Array): Promise<{ part_number: number; etag: string }[]> {
  return Promise.all(
    upload.parts.map(async ({ part_number, url }) => {
      const start = (part_number - 1) * upload.part_size;
      const response = await fetch(url, { method: "PUT", body: new Uint8Array(content.subarray(start, start + upload.part_size)) });
      if (response.status !== 200) throw new Error(`part ${part_number} answered ${response.status}: ${await response.text()}`);
      const etag = response.headers.get("etag");
      if (!etag) throw new Error(`part ${part_number} came back without an ETag`);
      return { part_number, etag };
    }),
  );
}

/** Follows a redirect the API answered (content, download) and returns the bytes S3 serves. */
export async function follow(reply: ApiReply): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const location = reply.headers.get("location");
  if (reply.status !== 302 || !location) throw new Error(`expected a redirect, got ${reply.status}: ${JSON.stringify(reply.body)}`);
  const response = await fetch(location);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Fetches a URL with no key and without following redirects. */
export async function fetchAnonymously(url: string): Promise<ApiReply> {
  return toReply(await fetch(url, { redirect: "manual" }));
}

/** `lines` JSONL request lines, each ending with a newline. */
export function jsonl(lines: number, pad = 0): string {
  const filler = "x".repeat(pad);
  let out = "";
  for (let i = 0; i < lines; i += 1) out += `${JSON.stringify({ custom_id: `r${i}`, body: { prompt: filler } })}\n`;
  return out;
}

export const randomContent = (bytes: number): Buffer => randomBytes(bytes);

export const sha256 = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex");

/** An S3 client on the run's s3rver, to look at the bucket behind the API. */
const s3 = new S3Client({ forcePathStyle: true, requestChecksumCalculation: "WHEN_REQUIRED" });

const bucket = () => {
  const name = process.env.BUCKET_FILES;
  if (!name) throw new Error("BUCKET_FILES is not set: the integration tests need the embedded backends");
  return name;
};

/** Whether the bytes of a file are in the bucket, at the key the API stores them under. */
export async function objectExists(workspace: string, fileId: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket(), Key: `workspaces/${workspace}/files/${fileId}` }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  }
}

/** Every object key under a workspace's prefix. */
export async function objectsOf(workspace: string): Promise<string[]> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket(), Prefix: `workspaces/${workspace}/` }));
  return (out.Contents ?? []).map((o) => o.Key!);
}
