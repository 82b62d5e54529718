import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { fetchAnonymously, filesClient, jsonl, objectExists } from "../../support/files-client.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);

describe("GET /v1/files/{file_id}", () => {
  it("answers the File with deleted false and nothing else", async () => {
    const file = await files.uploaded({ filename: "train.jsonl", content: jsonl(4), expiry: 2, visibility: "user" });
    const response = await files.retrieve(file.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.body).toEqual({ ...file, deleted: false });
    expect(response.body).toMatchObject({ num_lines: 4, visibility: "user", expires_at: file.created_at + 7200 });
  });

  it("answers 404 for an id that does not exist", async () => {
    const id = randomUUID();
    const response = await files.retrieve(id);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ object: "error", type: "not_found_error", code: "file_not_found", param: null });
    expect(response.body.message).toContain(id);
  });

  it("answers 422 for an id that is not a UUID", async () => {
    const response = await files.retrieve("not-a-uuid");
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([expect.objectContaining({ loc: ["path", "file_id"], type: "uuid_parsing" })]);
  });
});

describe("DELETE /v1/files/{file_id}", () => {
  it("answers the deletion and removes the record and the bytes", async () => {
    const file = await files.uploaded({ filename: "gone.jsonl" });
    expect(await objectExists(tenant.caller.workspace, file.id)).toBe(true);

    const response = await files.remove(file.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.body).toEqual({ id: file.id, object: "file", deleted: true });

    expect((await files.retrieve(file.id)).status).toBe(404);
    expect((await files.content(file.id)).status).toBe(404);
    expect((await files.signedUrl(file.id)).status).toBe(404);
    expect((await files.list()).body).toMatchObject({ data: [], total: 0 });
    expect(await objectExists(tenant.caller.workspace, file.id)).toBe(false);
  });

  it("answers 404 the second time", async () => {
    const file = await files.uploaded();
    expect((await files.remove(file.id)).status).toBe(200);
    const again = await files.remove(file.id);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ type: "not_found_error", code: "file_not_found" });
  });

  it("leaves the workspace's other files alone", async () => {
    const keep = await files.uploaded({ filename: "keep.jsonl" });
    const drop = await files.uploaded({ filename: "drop.jsonl" });
    expect((await files.remove(drop.id)).status).toBe(200);
    expect((await files.retrieve(keep.id)).status).toBe(200);
    expect(await objectExists(tenant.caller.workspace, keep.id)).toBe(true);
  });

  it("stops an earlier signed URL from working", async () => {
    const file = await files.uploaded();
    const { url } = (await files.signedUrl(file.id)).body;
    expect((await fetchAnonymously(url)).status).toBe(302);
    await files.remove(file.id);
    const after = await fetchAnonymously(url);
    expect(after.status).toBe(404);
    expect(after.body).toMatchObject({ type: "not_found_error", code: "file_not_found" });
  });

  it("answers 422 for an id that is not a UUID", async () => {
    expect((await files.remove("12345")).status).toBe(422);
  });
});
