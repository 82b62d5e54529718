import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient, follow, jsonl, objectExists, objectsOf, putParts, sha256, type StartedUpload } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);

async function started(body: Record<string, unknown>): Promise<StartedUpload> {
  const response = await files.startUpload(body);
  if (response.status !== 200) throw new Error(`start answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A small JSONL document: one part. */
const small = Buffer.from(jsonl(5));

describe("POST /v1/files/uploads and POST /v1/files/uploads/{upload_id}/complete", () => {
  it("uploads a 20 MB JSONL file in presigned parts and serves it back byte for byte", async () => {
    const lines = 100_000;
    const content = Buffer.from(jsonl(lines, 170));
    expect(content.length).toBeGreaterThan(20_000_000);

    const upload = await started({ filename: "big-train.jsonl", bytes: content.length, purpose: "fine-tune" });
    expect(upload).toMatchObject({ object: "file.upload", file_id: upload.id });
    expect(upload.part_size).toBeGreaterThanOrEqual(5 * 1024 * 1024);
    expect(upload.parts.map((p) => p.part_number)).toEqual(
      Array.from({ length: Math.ceil(content.length / upload.part_size) }, (_, i) => i + 1),
    );
    expect(upload.parts.length).toBeGreaterThan(1);

    const parts = await putParts(upload, content);
    const response = await files.completeUpload(upload.id, parts);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: upload.file_id,
      object: "file",
      filename: "big-train.jsonl",
      bytes: content.length,
      num_lines: lines,
      purpose: "fine-tune",
      sample_type: "instruct",
      source: "upload",
      mimetype: "application/jsonl",
      visibility: "workspace",
      expires_at: null,
    });

    expect((await files.retrieve(upload.file_id)).body).toEqual({ ...response.body, deleted: false });
    const download = await follow(await files.content(upload.file_id));
    expect(download.status).toBe(200);
    expect(download.bytes.length).toBe(content.length);
    expect(sha256(download.bytes)).toBe(sha256(content));
  }, 120_000);

  it("accepts parts listed out of order and keeps visibility and expiry", async () => {
    const upload = await started({ filename: "r.jsonl", bytes: small.length, purpose: "batch", visibility: "user", expiry: 5 });
    const parts = await putParts(upload, small);
    const response = await files.completeUpload(upload.id, parts.reverse());
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ bytes: small.length, num_lines: 5, sample_type: "batch_request", visibility: "user" });
    expect(response.body.expires_at).toBe(response.body.created_at + 5 * 3600);
  });

  it("refuses a second completion of a completed upload and keeps the first", async () => {
    const upload = await started({ filename: "once.jsonl", bytes: small.length, purpose: "batch" });
    const parts = await putParts(upload, small);
    const first = await files.completeUpload(upload.id, parts);
    expect(first.status).toBe(200);
    const again = await files.completeUpload(upload.id, parts);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ type: "conflict_error", code: "upload_completed" });
    expect((await files.list()).body).toMatchObject({ total: 1, data: [first.body] });
  });

  it("answers 400 and keeps nothing when the parts hold fewer bytes than declared", async () => {
    const upload = await started({ filename: "short.jsonl", bytes: small.length + 100, purpose: "batch" });
    const parts = await putParts(upload, small);
    const response = await files.completeUpload(upload.id, parts);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ object: "error", type: "invalid_request_error", code: "upload_size_mismatch" });
    expect((await files.retrieve(upload.file_id)).status).toBe(404);
    expect((await files.list()).body.total).toBe(0);
    expect(await objectExists(tenant.caller.workspace, upload.file_id)).toBe(false);
    // The upload is gone too: completing it again finds nothing.
    expect((await files.completeUpload(upload.id, parts)).status).toBe(404);
  });

  it("refuses a fine-tune upload that is not .jsonl before handing out part URLs", async () => {
    const response = await files.startUpload({ filename: "notes.txt", bytes: 10_000_000, purpose: "fine-tune" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: "invalid_request_error", code: "invalid_file_type" });
    expect(await objectsOf(tenant.caller.workspace)).toEqual([]);
  });

  it("answers 413 and keeps nothing when the parts hold more bytes than declared", async () => {
    const upload = await started({ filename: "long.jsonl", bytes: 10, purpose: "batch" });
    // One part of the whole document, where the upload expected ten bytes.
    const parts = await putParts({ ...upload, part_size: small.length }, small);
    const response = await files.completeUpload(upload.id, parts);
    expect(response.status).toBe(413);
    expect(response.body.code).toBe("upload_size_mismatch");
    expect((await files.list()).body.total).toBe(0);
    expect(await objectExists(tenant.caller.workspace, upload.file_id)).toBe(false);
  });

  it("answers 422 when the declared size is over 512 MB", async () => {
    const response = await files.startUpload({ filename: "huge.jsonl", bytes: 512 * 1024 * 1024 + 1, purpose: "batch" });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([expect.objectContaining({ loc: ["body", "bytes"], type: "less_than_equal" })]);
  });

  it("answers 422 for unknown fields or a missing size", async () => {
    const extra = await files.startUpload({ filename: "a.jsonl", bytes: 10, purpose: "batch", colour: "blue" });
    expect(extra.status).toBe(422);
    expect(extra.body.detail).toEqual([expect.objectContaining({ loc: ["body", "colour"], type: "extra_forbidden" })]);
    const missing = await files.startUpload({ filename: "a.jsonl", purpose: "batch" });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ["body", "bytes"], type: "missing" })]);
  });

  it("answers 404 to another principal of the same workspace, and the owner can still complete", async () => {
    const upload = await started({ filename: "mine.jsonl", bytes: small.length, purpose: "batch" });
    const parts = await putParts(upload, small);
    const colleague = filesClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace }));
    const response = await colleague.completeUpload(upload.id, parts);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ type: "not_found_error", code: "upload_not_found" });
    expect((await files.completeUpload(upload.id, parts)).status).toBe(200);
  });

  it("answers 404 to another workspace", async () => {
    const upload = await started({ filename: "mine.jsonl", bytes: small.length, purpose: "batch" });
    const parts = await putParts(upload, small);
    const stranger = filesClient(api, await newTenant());
    expect((await stranger.completeUpload(upload.id, parts)).status).toBe(404);
  });

  it("answers 404 for an unknown upload", async () => {
    const response = await files.completeUpload(randomUUID(), [{ part_number: 1, etag: '"x"' }]);
    expect(response.status).toBe(404);
  });

  it("answers 400 for a part number beyond the upload's parts", async () => {
    const upload = await started({ filename: "p.jsonl", bytes: small.length, purpose: "batch" });
    const parts = await putParts(upload, small);
    const response = await files.completeUpload(upload.id, [...parts, { part_number: 2, etag: parts[0]!.etag }]);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_parts", param: "parts" });
  });
});
