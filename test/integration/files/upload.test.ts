import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningApi } from "../../../infra/local/server.js";
import { startTestApi } from "../../support/api.js";
import { newTenant, type TestTenant } from "../../support/tenant.js";

let api: RunningApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await newTenant();
});
afterAll(() => api.stop());

function upload(form: FormData, key = tenant.key) {
  return fetch(`${api.url}/v1/files`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
}

const jsonl = (lines: number) => Array.from({ length: lines }, (_, i) => JSON.stringify({ custom_id: `r${i}`, body: {} })).join("\n") + "\n";

describe("POST /v1/files", () => {
  it("stores the bytes and a record with every File field", async () => {
    const form = new FormData();
    form.append("file", new Blob([jsonl(3)]), "requests.jsonl");
    form.append("purpose", "batch");
    const response = await upload(form);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const file = await response.json();
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
    expect(Math.abs(file.created_at - Date.now() / 1000)).toBeLessThan(60);

    const stored = await fetch(`${api.url}/v1/files/${file.id}/content`, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect(stored.status).toBe(200);
    expect(stored.headers.get("content-type")).toBe("application/octet-stream");
    expect(await stored.text()).toBe(jsonl(3));
  });

  it("refuses a non-JSONL file for fine-tuning and stores nothing", async () => {
    const form = new FormData();
    form.append("file", new Blob(["hello"]), "notes.txt");
    form.append("purpose", "fine-tune");
    const response = await upload(form);
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe("invalid_file_type");
    const list = await fetch(`${api.url}/v1/files?search=notes`, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect((await list.json()).total).toBe(0);
  });

  it("answers 401 without a valid key", async () => {
    const form = new FormData();
    form.append("file", new Blob(["{}\n"]), "a.jsonl");
    expect((await upload(form, "pak_not-a-real-key-at-all")).status).toBe(401);
  });
});
