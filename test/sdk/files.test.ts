/**
 * The Files API driven by the official, unmodified SDK (`@mistralai/mistralai`) against the local server:
 * what the SDK sends must be accepted, and what the server answers must parse into the SDK's typed
 * shapes (known enum values, camelCase fields), never into SDKError/ResponseValidationError on success.
 */
import { Mistral } from "@mistralai/mistralai";
import { FilePurpose, FileVisibility, SampleType, Source } from "@mistralai/mistralai/models/components";
import { MistralError, ResponseValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { newTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const sdk = (apiKey: string) => sdkClient(api, apiKey);
let client: Mistral;

const batchJsonl =
  [
    { custom_id: "0", body: { messages: [{ role: "user", content: "hi" }] } },
    { custom_id: "1", body: { messages: [{ role: "user", content: "hello again" }] } },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n") + "\n";

const tuneJsonl =
  [
    { messages: [{ role: "user", content: "2+2?" }, { role: "assistant", content: "4" }] },
    { messages: [{ role: "user", content: "3+3?" }, { role: "assistant", content: "6" }] },
    { messages: [{ role: "user", content: "4+4?" }, { role: "assistant", content: "8" }] },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n") + "\n";

const bytesOf = (text: string) => new TextEncoder().encode(text);

/** Values the SDK maps to its known enum members: an open enum lets any other string through unflagged. */
const known = {
  purpose: Object.values(FilePurpose) as string[],
  sampleType: Object.values(SampleType) as string[],
  source: Object.values(Source) as string[],
  visibility: Object.values(FileVisibility) as string[],
};

/** The SDK parsed the file into its own shape: camelCase fields present, no raw wire keys, only known enum values. */
function expectParsedFile(file: Record<string, unknown>) {
  expect(file).toMatchObject({
    id: expect.any(String),
    object: "file",
    sizeBytes: expect.any(Number),
    createdAt: expect.any(Number),
    filename: expect.any(String),
  });
  for (const raw of ["bytes", "created_at", "sample_type", "num_lines", "expires_at"]) expect(file).not.toHaveProperty(raw);
  expect(known.purpose).toContain(file.purpose);
  expect(known.sampleType).toContain(file.sampleType);
  expect(known.source).toContain(file.source);
  expect(known.visibility).toContain(file.visibility);
}

/** The SDK error a rejected call produced (and not some other failure). */
const sdkErrorOf = (call: Promise<unknown>) => errorOf(call, SDKError);

let batchFile: Awaited<ReturnType<Mistral["files"]["upload"]>>;
let tuneFile: Awaited<ReturnType<Mistral["files"]["upload"]>>;

beforeAll(async () => {
  client = sdk(tenant.key);
  batchFile = await client.files.upload({ file: { fileName: "batch.jsonl", content: bytesOf(batchJsonl) }, purpose: "batch" });
  tuneFile = await client.files.upload({ file: { fileName: "train.jsonl", content: bytesOf(tuneJsonl) }, purpose: "fine-tune" });
});

describe("files.upload", () => {
  it("takes a JSON-lines blob without a name for fine-tuning, as the SDK's own example uploads it", async () => {
    const blob = new Blob([tuneJsonl], { type: "application/json" });

    const file = await client.files.upload({ file: blob });

    expect(file).toMatchObject({ purpose: "fine-tune", numLines: tuneJsonl.trim().split("\n").length });
    await client.files.delete({ fileId: file.id });
  });

  it("uploads a batch JSONL file and returns it in the SDK's shape", () => {
    expectParsedFile(batchFile);
    expect(batchFile).toMatchObject({
      filename: "batch.jsonl",
      purpose: "batch",
      sampleType: "batch_request",
      source: "upload",
      sizeBytes: bytesOf(batchJsonl).length,
      numLines: 2,
      mimetype: "application/jsonl",
      visibility: "workspace",
      expiresAt: null,
      signature: null,
    });
    expect(Math.abs(batchFile.createdAt - Date.now() / 1000)).toBeLessThan(120);
  });

  it("uploads a fine-tune JSONL file", () => {
    expectParsedFile(tuneFile);
    expect(tuneFile).toMatchObject({
      filename: "train.jsonl",
      purpose: "fine-tune",
      sampleType: "instruct",
      source: "upload",
      sizeBytes: bytesOf(tuneJsonl).length,
      numLines: 3,
    });
  });

  it("refuses a .txt file for fine-tuning with a 400 SDKError", async () => {
    const error = await sdkErrorOf(client.files.upload({ file: { fileName: "notes.txt", content: bytesOf("hello") }, purpose: "fine-tune" }));
    expect(error.statusCode).toBe(400);
    expect(JSON.parse(error.body)).toMatchObject({ object: "error", type: "invalid_request_error", code: "invalid_file_type" });
  });
});

describe("files.list", () => {
  it("lists both files newest first, with the total", async () => {
    const list = await client.files.list();
    expect(list.object).toBe("list");
    expect(list.total).toBe(2);
    expect(list.data.map((f) => f.id)).toEqual([tuneFile.id, batchFile.id]);
    list.data.forEach((f) => expectParsedFile(f));
  });

  it("pages with page and pageSize", async () => {
    const first = await client.files.list({ page: 0, pageSize: 1 });
    const second = await client.files.list({ page: 1, pageSize: 1 });
    const beyond = await client.files.list({ page: 2, pageSize: 1 });
    expect(first.data.map((f) => f.id)).toEqual([tuneFile.id]);
    expect(second.data.map((f) => f.id)).toEqual([batchFile.id]);
    expect(beyond.data).toEqual([]);
    expect([first.total, second.total, beyond.total]).toEqual([2, 2, 2]);
  });

  it("omits the total when includeTotal is false", async () => {
    const list = await client.files.list({ includeTotal: false });
    expect(list.total ?? null).toBeNull();
    expect(list.data).toHaveLength(2);
  });

  it("filters by purpose", async () => {
    const list = await client.files.list({ purpose: "batch" });
    expect(list.total).toBe(1);
    expect(list.data.map((f) => f.id)).toEqual([batchFile.id]);
  });

  it("filters by sample type and by search", async () => {
    const instruct = await client.files.list({ sampleType: ["instruct"] });
    expect(instruct.data.map((f) => f.id)).toEqual([tuneFile.id]);
    const search = await client.files.list({ search: "BATCH" });
    expect(search.data.map((f) => f.id)).toEqual([batchFile.id]);
  });
});

describe("files.retrieve", () => {
  it("returns the stored record with deleted false", async () => {
    const got = await client.files.retrieve({ fileId: batchFile.id });
    expectParsedFile(got);
    expect(got.deleted).toBe(false);
    const { fileStore } = await import("../../shared/store/files.js");
    const stored = await fileStore.get(tenant.caller.workspace, batchFile.id);
    expect(stored).toBeDefined();
    expect(got).toEqual({
      id: stored!.id,
      object: "file",
      sizeBytes: stored!.bytes,
      createdAt: stored!.createdAt,
      filename: stored!.filename,
      purpose: stored!.purpose,
      sampleType: stored!.sampleType,
      numLines: stored!.numLines,
      mimetype: stored!.mimetype,
      source: stored!.source,
      signature: stored!.signature,
      expiresAt: stored!.expiresAt,
      visibility: stored!.visibility,
      deleted: false,
    });
    const { deleted: _deleted, ...asUploaded } = got;
    expect(asUploaded).toEqual(batchFile);
  });

  it("rejects an unknown id with a 404 SDKError", async () => {
    const error = await sdkErrorOf(client.files.retrieve({ fileId: "00000000-0000-4000-8000-000000000000" }));
    expect(error.statusCode).toBe(404);
    expect(JSON.parse(error.body)).toMatchObject({ object: "error", type: "not_found_error" });
  });

  it("rejects a bad key with a 401 SDKError", async () => {
    const error = await sdkErrorOf(sdk("pak_not-a-real-key-at-all").files.retrieve({ fileId: batchFile.id }));
    expect(error.statusCode).toBe(401);
    expect(JSON.parse(error.body)).toMatchObject({ object: "error", type: "authentication_error" });
  });
});

describe("files.download", () => {
  it("streams the uploaded bytes", async () => {
    const stream = await client.files.download({ fileId: batchFile.id });
    expect(stream).toBeInstanceOf(ReadableStream);
    expect(await new Response(stream).text()).toBe(batchJsonl);
  });
});

describe("files.getSignedUrl", () => {
  it("returns a URL that serves the bytes to a plain fetch with no key", async () => {
    const { url } = await client.files.getSignedUrl({ fileId: tuneFile.id, expiry: 1 });
    expect(url.startsWith(`${api.url}/`)).toBe(true);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(tuneJsonl);
  });
});

describe("files.delete", () => {
  it("deletes the file, after which retrieve rejects with 404", async () => {
    // Its own workspace, so the listings above never see this file come and go.
    const other = await newTenant();
    const otherClient = sdk(other.key);
    const file = await otherClient.files.upload({ file: { fileName: "gone.jsonl", content: bytesOf(batchJsonl) }, purpose: "batch" });
    const deleted = await otherClient.files.delete({ fileId: file.id });
    expect(deleted).toEqual({ id: file.id, object: "file", deleted: true });
    const error = await sdkErrorOf(otherClient.files.retrieve({ fileId: file.id }));
    expect(error.statusCode).toBe(404);
    expect((await otherClient.files.list()).total).toBe(0);
  });
});

describe("errors", () => {
  it("are SDK HTTP errors, never response-validation failures", async () => {
    const error = await client.files.retrieve({ fileId: "00000000-0000-4000-8000-000000000001" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MistralError);
    expect(error).not.toBeInstanceOf(ResponseValidationError);
    expect((error as MistralError).contentType).toMatch(/^application\/json/);
  });
});
