/**
 * POST /v1/libraries/{library_id}/documents through the streaming upload service on the embedded servers (the local
 * server sends the route there, as the deployment's CloudFront function does): a document past what the Lambda route
 * carries (4 MiB) is stored, recorded, processed; the same bytes again answer the same document; a refused caller or
 * a document past the limit leaves no object, no record and the library's counters as they were.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploadService } from "../../../functions/upload-service/server.js";
import { documentKeys } from "../../../shared/domain/libraries/documents.js";
import { INLINE_UPLOAD_MAX_BYTES } from "../../../shared/services/files/files.js";
import { useEmbeddedApi } from "../../support/api.js";
import { objectsOf } from "../../support/files-client.js";
import { librariesClient } from "../../support/libraries-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const client = librariesClient(api, tenant);
const docs = client.documents;

/** Plain text of `bytes` bytes, numbered lines so that no two chunks are alike. */
function textOf(bytes: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i += 1) {
    const line = `Line ${i}: the travel policy books trains in second class and files expenses within thirty days.\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join("")).subarray(0, bytes);
}

/** A service of its own with a small document limit, in front of the same embedded backends. */
const DOCUMENT_LIMIT = 1024 * 1024;
let limited: Server;
let limitedUrl: string;
beforeAll(async () => {
  const serve = uploadService({ maxDocumentBytes: DOCUMENT_LIMIT });
  limited = createServer((req, res) => void serve(req, res));
  await new Promise<void>((resolve) => limited.listen(0, "127.0.0.1", resolve));
  limitedUrl = `http://127.0.0.1:${(limited.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => limited.close(() => resolve())));

const BOUNDARY = "----document-upload";

/** A form whose one file part streams (chunked, no declared length), as a client of a big file sends it. */
function chunkedForm(filename: string, content: Buffer): Readable {
  return Readable.from(
    (function* () {
      yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`);
      for (let at = 0; at < content.length; at += 256 * 1024) yield content.subarray(at, at + 256 * 1024);
      yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    })(),
  );
}

describe("POST /v1/libraries/{library_id}/documents through the streaming upload service", () => {
  it("takes a 6 MiB text document (201), processes it to done, and answers the same document (200) for the same bytes", async () => {
    const library = await client.created({ name: "Manuals", chunk_size: 32768 });
    const content = textOf(6 * 1024 * 1024);
    expect(content.length).toBeGreaterThan(INLINE_UPLOAD_MAX_BYTES);

    const uploaded = await docs.upload(library.id, content, "manual.txt");

    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ library_id: library.id, name: "manual.txt", extension: "txt", mime_type: "text/plain", size: content.length, process_status: "todo" });
    const key = documentKeys({ workspace: tenant.caller.workspace, libraryId: library.id, id: uploaded.body.id }).original;
    expect(await objectsOf(tenant.caller.workspace)).toContain(key);
    const document = await docs.processed(library.id, uploaded.body.id, 150_000);
    expect(document).toMatchObject({ process_status: "done", process_error: null });
    expect((await docs.text(library.id, uploaded.body.id)).body.text).toContain("Line 0: the travel policy");

    const again = await docs.upload(library.id, content, "manual-copy.txt");

    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: uploaded.body.id, name: "manual.txt" });
    expect((await client.get(library.id)).body).toMatchObject({ nb_documents: 1, total_size: content.length });
    expect((await objectsOf(tenant.caller.workspace)).filter((k) => k.endsWith("/original"))).toEqual([key]);
  }, 180_000);

  it("refuses a key without libraries:write (403) before reading the document, leaving no object", async () => {
    const library = await client.created({ name: "Closed" });
    const reader = await newTenant({ roles: ["billing"], workspace: tenant.caller.workspace, organization: tenant.caller.organization });

    const refused = await librariesClient(api, reader).documents.upload(library.id, textOf(5 * 1024 * 1024), "big.txt");

    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: "permission_error" });
    expect(await objectsOf(tenant.caller.workspace)).toEqual([]);
    expect((await client.get(library.id)).body).toMatchObject({ nb_documents: 0, total_size: 0 });
  });

  it("answers 404 for a library it cannot see, storing nothing", async () => {
    const refused = await docs.upload("00000000-0000-4000-8000-000000000000", textOf(5 * 1024 * 1024), "big.txt");

    expect(refused.status).toBe(404);
    expect(await objectsOf(tenant.caller.workspace)).toEqual([]);
  });

  it("answers 413 past the document limit while it streams, leaving no object, no record and the counters unchanged", async () => {
    const library = await client.created({ name: "Bounded" });
    const kept = await docs.upload(library.id, Buffer.from("A short note."), "note.txt");
    expect(kept.status).toBe(201);
    const before = (await client.get(library.id)).body;

    const response = await fetch(`${limitedUrl}/v1/libraries/${library.id}/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      body: Readable.toWeb(chunkedForm("huge.txt", textOf(DOCUMENT_LIMIT + 300 * 1024))) as ReadableStream,
      duplex: "half",
    } as RequestInit);

    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ object: "error", type: "invalid_request_error", code: "document_too_large" });
    const keys = await objectsOf(tenant.caller.workspace);
    expect(keys.filter((k) => k.endsWith("/original"))).toEqual([documentKeys({ workspace: tenant.caller.workspace, libraryId: library.id, id: kept.body.id }).original]);
    expect((await docs.list(library.id)).body.data.map((d: { id: string }) => d.id)).toEqual([kept.body.id]);
    const after = (await client.get(library.id)).body;
    expect({ nb_documents: after.nb_documents, total_size: after.total_size }).toEqual({ nb_documents: before.nb_documents, total_size: before.total_size });
  });
});
