import { describe, expect, it } from "vitest";
import { INLINE_UPLOAD_MAX_BYTES } from "../../../shared/services/files/files.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient, follow, jsonl, objectsOf } from "../../support/files-client.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);

describe("POST /v1/files", () => {
  it("stores the bytes and a record with every File field", async () => {
    const response = await files.upload({ filename: "requests.jsonl", content: jsonl(3), purpose: "batch" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const file = response.body;
    expect(Object.keys(file).sort()).toEqual(
      ["bytes", "created_at", "expires_at", "filename", "id", "mimetype", "num_lines", "object", "purpose", "sample_type", "signature", "source", "visibility"],
    );
    expect(file).toMatchObject({
      object: "file",
      bytes: Buffer.byteLength(jsonl(3)),
      filename: "requests.jsonl",
      purpose: "batch",
      sample_type: "batch_request",
      source: "upload",
      mimetype: "application/jsonl",
      num_lines: 3,
      visibility: "workspace",
      expires_at: null,
      signature: null,
    });
    expect(file.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Math.abs(file.created_at - Date.now() / 1000)).toBeLessThan(60);

    const stored = await follow(await files.content(file.id));
    expect(stored.status).toBe(200);
    expect(stored.headers.get("content-type")).toBe("application/octet-stream");
    expect(stored.bytes.toString("utf8")).toBe(jsonl(3));
  });

  it("defaults the purpose to fine-tune, whose sample type is instruct", async () => {
    const file = await files.uploaded({ filename: "train.jsonl", content: jsonl(2) });
    expect(file).toMatchObject({ purpose: "fine-tune", sample_type: "instruct", num_lines: 2 });
  });

  it("counts no lines for a file that is not JSONL and keeps its declared type", async () => {
    const file = await files.uploaded({ filename: "scan.pdf", content: "%PDF-1.4\n...\n", type: "application/pdf", purpose: "ocr" });
    expect(file).toMatchObject({ purpose: "ocr", mimetype: "application/pdf", num_lines: null, bytes: 13 });
  });

  it("records visibility user when asked", async () => {
    const file = await files.uploaded({ visibility: "user" });
    expect(file.visibility).toBe("user");
    expect((await files.retrieve(file.id)).body.visibility).toBe("user");
  });

  it("sets expires_at to created_at plus the expiry in hours", async () => {
    const file = await files.uploaded({ expiry: 48 });
    expect(file.expires_at).toBe(file.created_at + 48 * 3600);
    expect((await files.retrieve(file.id)).body.expires_at).toBe(file.expires_at);
  });

  it("answers 422 with a detail entry when the form has no file part", async () => {
    const response = await files.upload({ purpose: "batch" });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([expect.objectContaining({ loc: ["body", "file"], type: "missing" })]);
  });

  it("answers 422 for an unknown purpose and stores nothing", async () => {
    const response = await files.upload({ filename: "a.jsonl", content: "{}\n", purpose: "pretraining" });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([expect.objectContaining({ loc: ["body", "purpose"], type: "enum" })]);
    expect((await files.list()).body.total).toBe(0);
  });

  it("answers 422 for an expiry that is not a positive whole number of hours", async () => {
    for (const expiry of ["0", "1.5", "soon"]) {
      const response = await files.upload({ filename: "a.jsonl", content: "{}\n", expiry });
      expect(response.status, `expiry=${expiry}`).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["body", "expiry"]);
    }
  });

  it("refuses a non-JSONL file for fine-tuning and stores nothing", async () => {
    const response = await files.upload({ filename: "notes.txt", content: "hello", purpose: "fine-tune" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ object: "error", type: "invalid_request_error", code: "invalid_file_type" });
    expect((await files.list({ search: "notes" })).body.total).toBe(0);
    expect(await objectsOf(tenant.caller.workspace)).toEqual([]);
  });

  it("takes a file over the Lambda route's inline limit: npm start streams POST /v1/files through the upload service", async () => {
    const content = new Uint8Array(INLINE_UPLOAD_MAX_BYTES + 1).fill(0x61);

    const file = await files.uploaded({ filename: "big.bin", content, purpose: "batch" });

    expect(file.bytes).toBe(content.length);
    const stored = await follow(await files.content(file.id));
    expect(stored.bytes.equals(Buffer.from(content))).toBe(true);
  });

  it("accepts a file of exactly the inline limit", async () => {
    const file = await files.uploaded({ filename: "edge.bin", content: new Uint8Array(INLINE_UPLOAD_MAX_BYTES).fill(0x62), purpose: "batch" });
    expect(file.bytes).toBe(INLINE_UPLOAD_MAX_BYTES);
  });

  it("answers 401 without a valid key", async () => {
    const response = await files.upload({ filename: "a.jsonl", content: "{}\n" }, { key: "pak_not-a-real-key-at-all" });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ object: "error", type: "authentication_error" });
  });
});
