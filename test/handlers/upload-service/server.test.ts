/**
 * The streaming upload service's handler (functions/upload-service/server.ts) on a real HTTP server, with
 * DynamoDB and S3 mocked: the authorizer's key check, the row's permission, the size limit while the body
 * streams, the form's rules, and that a refusal or failure leaves no object, multipart upload or record.
 */
import { createHash } from "node:crypto";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { BatchGetCommand, GetCommand, TransactWriteCommand, type BatchGetCommandInput } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploadService } from "../../../functions/upload-service/server.js";
import type { ApiKeyRecord } from "../../../shared/domain/api-keys.js";
import { STREAM_PART_BYTES } from "../../../shared/blobs/files.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { anApiKeyRecord } from "../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3({ resolves: {} });

const KEY = "pak_3q2-7wAbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** Small enough to go past in a test; the real limit (512 MB) is checked by Content-Length below. */
const TEST_LIMIT = 3 * STREAM_PART_BYTES;

/** A live key in a live workspace, as the authorizer's reads find it (test/handlers/auth/authorizer.test.ts). */
function storedKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const record = anApiKeyRecord({ hash: sha256(KEY), ...overrides });
  dynamo.on(GetCommand, { Key: { pk: `KEY#${record.hash}`, sk: "#KEY" } }).resolves({
    Item: { pk: `KEY#${record.hash}`, sk: "#KEY", gsi1pk: `KEYS#${record.organization}`, gsi1sk: record.keyId, ...record },
  });
  const items = [{ pk: `ORG#${record.organization}`, sk: `WS#${record.workspace}`, id: record.workspace, organization: record.organization, name: "w", isDefault: false, createdAt: "2026-01-01T00:00:00.000Z" }];
  dynamo.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => {
    const [table, request] = Object.entries(input.RequestItems!)[0]!;
    return { Responses: { [table]: items.filter((i) => request.Keys!.some((k) => k.pk === i.pk && k.sk === i.sk)) } };
  });
  return record;
}

let server: Server;
let url: string;
beforeAll(async () => {
  const serve = uploadService({ maxBytes: TEST_LIMIT });
  server = createServer((req, res) => void serve(req, res, "req-1"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/files`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const BOUNDARY = "----upload-test-boundary";
type Field = string | { filename: string; content: Uint8Array | string; type?: string };

/** A multipart form as the SDK sends it: the file part first, the text fields after it. */
function form(fields: Record<string, Field>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === "string") {
      parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: ${value.type ?? "application/octet-stream"}\r\n\r\n`));
      parts.push(Buffer.from(value.content));
      parts.push(Buffer.from("\r\n"));
    }
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

async function post(body: Buffer | Readable, headers: Record<string, string> = {}, key: string | null = KEY) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: body instanceof Readable ? (Readable.toWeb(body) as ReadableStream) : body,
    ...(body instanceof Readable ? { duplex: "half" } : {}),
  } as RequestInit);
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, any> };
}

/** `bytes` of a file part whose size is not declared anywhere (chunked), in 1 MiB chunks. */
function chunkedForm(filename: string, bytes: number, fields: Record<string, string> = { purpose: "batch" }): Readable {
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.concat([Buffer.from("\r\n"), form(fields)]);
  return Readable.from(
    (function* () {
      yield head;
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      for (let sent = 0; sent < bytes; sent += chunk.length) yield chunk.subarray(0, Math.min(chunk.length, bytes - sent));
      yield tail;
    })(),
  );
}

const jsonl = '{"prompt":"a"}\n{"prompt":"b"}\n\n{"prompt":"c"}\n';
const recordWrites = () => dynamo.commandCalls(TransactWriteCommand);

describe("POST /v1/files on the streaming upload service", () => {
  it("stores a small file with one PutObject and answers the same File the Lambda route does", async () => {
    const record = storedKey();

    const response = await post(form({ file: { filename: "train.jsonl", content: jsonl }, purpose: "fine-tune" }));

    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("req-1");
    expect(response.json).toMatchObject({ object: "file", bytes: Buffer.byteLength(jsonl), filename: "train.jsonl", purpose: "fine-tune", num_lines: 3, mimetype: "application/jsonl", source: "upload" });
    const put = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(put.Key).toBe(`workspaces/${record.workspace}/files/${response.json.id}`);
    expect(Buffer.from(put.Body as Uint8Array).toString("utf8")).toBe(jsonl);
    expect(s3.commandCalls(CreateMultipartUploadCommand)).toHaveLength(0);
    const item = (recordWrites()[0]!.args[0].input.TransactItems![0] as { Put: { Item: Record<string, unknown> } }).Put.Item;
    expect(item).toMatchObject({ id: response.json.id, workspace: record.workspace, bytes: Buffer.byteLength(jsonl), numLines: 3 });
  });

  it("streams a file larger than one part as an S3 multipart upload of 8 MiB parts", async () => {
    storedKey();
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: "mpu-1" });
    s3.on(UploadPartCommand).callsFake((input: { PartNumber: number }) => ({ ETag: `"etag-${input.PartNumber}"` }));
    const bytes = 2 * STREAM_PART_BYTES + 123;

    const response = await post(chunkedForm("big.bin", bytes));

    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ bytes, purpose: "batch", num_lines: null });
    const parts = s3.commandCalls(UploadPartCommand).map((c) => [c.args[0].input.PartNumber, (c.args[0].input.Body as Uint8Array).length]);
    expect(parts).toEqual([
      [1, STREAM_PART_BYTES],
      [2, STREAM_PART_BYTES],
      [3, 123],
    ]);
    expect(s3.commandCalls(CompleteMultipartUploadCommand)[0]!.args[0].input.MultipartUpload!.Parts).toEqual([
      { PartNumber: 1, ETag: '"etag-1"' },
      { PartNumber: 2, ETag: '"etag-2"' },
      { PartNumber: 3, ETag: '"etag-3"' },
    ]);
    expect(recordWrites()).toHaveLength(1);
  });

  it("counts the lines of a JSON-lines blob without a .jsonl name by its content, across parts", async () => {
    storedKey();
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: "mpu-2" });
    s3.on(UploadPartCommand).resolves({ ETag: '"e"' });
    const line = `${JSON.stringify({ messages: [{ role: "user", content: "x".repeat(200) }] })}\n`;
    const content = line.repeat(Math.ceil((STREAM_PART_BYTES + 5000) / line.length));

    const response = await post(form({ file: { filename: "blob", content } }));

    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ purpose: "fine-tune", num_lines: content.length / line.length });
  });

  it("answers 401 without a key or with an unknown one, before reading the body, and stores nothing", async () => {
    const without = await post(form({ file: { filename: "a.jsonl", content: jsonl } }), {}, null);
    const unknown = await post(form({ file: { filename: "a.jsonl", content: jsonl } }), {}, "pak_not-a-real-key-at-all");

    for (const response of [without, unknown]) {
      expect(response.status).toBe(401);
      expect(response.json).toMatchObject({ object: "error", type: "authentication_error", code: "unauthorized" });
    }
    expect(s3.calls()).toHaveLength(0);
    expect(recordWrites()).toHaveLength(0);
  });

  it("answers 403 to a key whose roles do not allow files:write, and stores nothing", async () => {
    storedKey({ roles: ["billing"] });

    const response = await post(form({ file: { filename: "a.jsonl", content: jsonl }, purpose: "batch" }));

    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({ type: "permission_error", code: "missing_permission" });
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 413 naming the 512 MB limit when the declared length is over it, without reading the body", async () => {
    storedKey();
    const serve = uploadService();
    const big = createServer((req, res) => void serve(req, res));
    await new Promise<void>((resolve) => big.listen(0, "127.0.0.1", resolve));
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        // A request that claims 600 MB and sends a few bytes: the answer must not wait for the rest.
        const request = httpRequest(
          { host: "127.0.0.1", port: (big.address() as AddressInfo).port, path: "/v1/files", method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": `multipart/form-data; boundary=${BOUNDARY}`, "content-length": 600 * 1024 * 1024 } },
          (res: IncomingMessage) => {
            let body = "";
            res.on("data", (c: Buffer) => (body += c));
            res.on("end", () => resolve({ status: res.statusCode!, body }));
          },
        );
        request.on("error", reject);
        request.write(Buffer.alloc(1024));
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ object: "error", code: "file_too_large", message: expect.stringContaining("536870912 bytes (512 MB)") });
      expect(s3.calls()).toHaveLength(0);
    } finally {
      big.closeAllConnections();
      await new Promise<void>((resolve) => big.close(() => resolve()));
    }
  });

  it("answers 413 when an undeclared body goes past the limit, and aborts the multipart upload it started", async () => {
    storedKey();
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: "mpu-3" });
    s3.on(UploadPartCommand).resolves({ ETag: '"e"' });

    const response = await post(chunkedForm("huge.bin", TEST_LIMIT + 1024 * 1024));

    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ code: "file_too_large", message: expect.stringContaining(`${TEST_LIMIT} bytes`) });
    expect(s3.commandCalls(AbortMultipartUploadCommand).map((c) => c.args[0].input.UploadId)).toEqual(["mpu-3"]);
    expect(s3.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
    expect(recordWrites()).toHaveLength(0);
  });

  it("still answers the 413 when the abort itself fails (the bucket's lifecycle rule removes the parts later)", async () => {
    storedKey();
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: "mpu-5" });
    s3.on(UploadPartCommand).resolves({ ETag: '"e"' });
    s3.on(AbortMultipartUploadCommand).rejects(new Error("S3 is down"));

    const response = await post(chunkedForm("huge.bin", TEST_LIMIT + 1024 * 1024));

    expect(response.status).toBe(413);
    expect(s3.commandCalls(AbortMultipartUploadCommand)).toHaveLength(1);
    expect(recordWrites()).toHaveLength(0);
  });

  it("refuses a fine-tune file that is not JSON lines (the inline route's 400) and removes the stored bytes", async () => {
    storedKey();

    const response = await post(form({ file: { filename: "notes.txt", content: "hello\nworld\n", type: "text/plain" }, purpose: "fine-tune" }));

    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ type: "invalid_request_error", code: "invalid_file_type", param: "file" });
    const put = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key)).toEqual([put.Key]);
    expect(recordWrites()).toHaveLength(0);
  });

  it("answers 422 for an invalid field, naming it as the Lambda route does, and removes the stored bytes", async () => {
    storedKey();

    const response = await post(form({ file: { filename: "a.jsonl", content: jsonl }, purpose: "painting" }));

    expect(response.status).toBe(422);
    expect(response.json.detail).toEqual([expect.objectContaining({ loc: ["body", "purpose"] })]);
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(1);
    expect(recordWrites()).toHaveLength(0);
  });

  it("answers 422 to a form without a file part and to a malformed body; 415 to another media type", async () => {
    storedKey();

    const noFile = await post(form({ purpose: "batch" }));
    const malformed = await post(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n{"a":1}`));
    const json = await post(Buffer.from("{}"), { "content-type": "application/json" });

    expect(noFile.status).toBe(422);
    expect(noFile.json.detail).toEqual([expect.objectContaining({ loc: ["body", "file"] })]);
    expect(malformed.status).toBe(422);
    expect(json.status).toBe(415);
    expect(recordWrites()).toHaveLength(0);
  });

  it("aborts the multipart upload and answers 500 when S3 fails mid-stream, leaving no record", async () => {
    storedKey();
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: "mpu-4" });
    // The second part fails, once the client has sent its whole body: refused earlier, a client still sending on a
    // loaded machine met a closed connection (EPIPE) before it read the answer (the server drops it once answered).
    s3.on(UploadPartCommand).resolvesOnce({ ETag: '"e1"' }).rejectsOnce(new Error("S3 is down")).resolves({ ETag: '"e"' });

    const response = await post(chunkedForm("big.bin", 2 * STREAM_PART_BYTES));

    expect(response.status).toBe(500);
    expect(response.json).toMatchObject({ object: "error", type: "server_error" });
    expect(JSON.stringify(response.json)).not.toContain("S3 is down");
    expect(s3.commandCalls(AbortMultipartUploadCommand).map((c) => c.args[0].input.UploadId)).toEqual(["mpu-4"]);
    expect(recordWrites()).toHaveLength(0);
  });

  it("removes the object when the record cannot be written", async () => {
    storedKey();
    dynamo.on(TransactWriteCommand).rejects(new Error("DynamoDB is down"));

    const response = await post(form({ file: { filename: "a.jsonl", content: jsonl }, purpose: "batch" }));

    expect(response.status).toBe(500);
    const put = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key)).toEqual([put.Key]);
  });
});

describe("POST /v1/libraries/{library_id}/documents on the streaming upload service", () => {
  const LIBRARY = "0b5f3c1e-4a8e-4c1a-9d0e-3f1b2c3d4e5f";
  const postTo = async (path: string, body: Buffer, key: string | null = KEY) => {
    const response = await fetch(new URL(path, url), {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: new Uint8Array(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, any> };
  };
  const document = () => form({ file: { filename: "notes.txt", content: "Plain notes.", type: "text/plain" } });

  it("answers 401 without a key and 403 to a key whose roles do not allow libraries:write, storing nothing", async () => {
    const without = await postTo(`/v1/libraries/${LIBRARY}/documents`, document(), null);
    storedKey({ roles: ["billing"] });
    const refused = await postTo(`/v1/libraries/${LIBRARY}/documents`, document());

    expect(without.status).toBe(401);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ type: "permission_error", code: "missing_permission" });
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 422 on the path for a library id that is not a UUID, as the Lambda route does, storing nothing", async () => {
    storedKey();

    const response = await postTo("/v1/libraries/not-a-uuid/documents", document());

    expect(response.status).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["path", "library_id"]);
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 404 for a library it cannot see before reading the document, storing nothing", async () => {
    storedKey();

    const response = await postTo(`/v1/libraries/${LIBRARY}/documents`, document());

    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ object: "error", type: "not_found_error" });
    expect(s3.calls()).toHaveLength(0);
    expect(recordWrites()).toHaveLength(0);
  });

  it("answers a path it does not serve as API Gateway answers an unknown route", async () => {
    storedKey();

    const response = await postTo(`/v1/libraries/${LIBRARY}/documents/extra`, document());

    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ code: "route_not_found" });
    expect(s3.calls()).toHaveLength(0);
  });
});
