import { afterEach, describe, expect, it, vi } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient, type FilesClient } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

const { api } = useEmbeddedApi({ tenant: "none" });
afterEach(() => vi.useRealTimers());

const total = async (files: FilesClient) => (await files.list({ page_size: 1 })).body.total as number;

// The total under concurrent uploads and deletes is an invariant of the ring (test/ring/invariants/files.ts).
describe("the unfiltered total of GET /v1/files", () => {
  it("counts an expiring file until the second it expires", async () => {
    const files = filesClient(api, await newTenant());
    await files.uploaded({ filename: "kept.jsonl" });
    const expiring = await files.uploaded({ filename: "soon.jsonl", expiry: 1 });
    expect(await total(files)).toBe(2);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime((expiring.expires_at! - 1) * 1000);
    expect(await total(files)).toBe(2);
    vi.setSystemTime(expiring.expires_at! * 1000);
    expect(await total(files)).toBe(1);
    expect((await files.list()).body.data.map((f: { filename: string }) => f.filename)).toEqual(["kept.jsonl"]);
  });

  it("counts another principal's user files only for that principal", async () => {
    const owner = await newTenant();
    const colleague = await newTenant({ organization: owner.caller.organization, workspace: owner.caller.workspace });
    const mine = filesClient(api, owner);
    await mine.uploaded({ filename: "shared.jsonl" });
    await mine.uploaded({ filename: "private.jsonl", visibility: "user" });
    await mine.uploaded({ filename: "private-expiring.jsonl", visibility: "user", expiry: 5 });
    expect(await total(mine)).toBe(3);
    expect(await total(filesClient(api, colleague))).toBe(1);
  });

  it("does not count a large upload that is not completed yet", async () => {
    const files = filesClient(api, await newTenant());
    const started = await files.startUpload({ filename: "big.jsonl", bytes: 20 * 1024 * 1024, purpose: "batch" });
    expect(started.status).toBe(200);
    expect((await files.list()).body).toMatchObject({ total: 0, data: [] });
  });

  it("matches the filtered count when a filter is given", async () => {
    const files = filesClient(api, await newTenant());
    await files.uploaded({ filename: "a.jsonl", purpose: "batch" });
    await files.uploaded({ filename: "b.jsonl", purpose: "fine-tune" });
    await files.uploaded({ filename: "c.jsonl", purpose: "batch", expiry: 2 });
    expect((await files.list({ purpose: "batch" })).body.total).toBe(2);
    expect(await total(files)).toBe(3);
  });
});
