import { beforeAll, describe, expect, it } from "vitest";
import type { FileOut } from "../../../shared/schemas/file.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient, type FilesClient } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

const { api } = useEmbeddedApi({ tenant: "none" });

async function freshClient(): Promise<FilesClient> {
  return filesClient(api, await newTenant());
}

const ids = (data: FileOut[]) => data.map((f) => f.id);

describe("GET /v1/files", () => {
  describe("paging", () => {
    let files: FilesClient;
    /** Oldest first, as uploaded. */
    let uploaded: FileOut[];

    beforeAll(async () => {
      files = await freshClient();
      uploaded = [];
      for (let i = 0; i < 7; i += 1) uploaded.push(await files.uploaded({ filename: `part-${i}.jsonl` }));
    });

    it("lists newest first with the total", async () => {
      const response = await files.list();
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.body.object).toBe("list");
      expect(response.body.total).toBe(7);
      expect(ids(response.body.data)).toEqual(ids(uploaded).reverse());
      expect(response.body.data[0]).toEqual(uploaded[6]);
    });

    it("pages by page and page_size without gaps or repeats", async () => {
      const pages = await Promise.all([0, 1, 2, 3].map((page) => files.list({ page, page_size: 3 })));
      expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 200]);
      expect(pages.map((p) => p.body.data.length)).toEqual([3, 3, 1, 0]);
      expect(pages.map((p) => p.body.total)).toEqual([7, 7, 7, 7]);
      const seen = pages.flatMap((p) => ids(p.body.data));
      expect(new Set(seen).size).toBe(7);
      expect(seen).toEqual(ids(uploaded).reverse());
    });

    it("answers total null when include_total is false", async () => {
      const response = await files.list({ include_total: false, page_size: 2 });
      expect(response.status).toBe(200);
      expect(response.body.total).toBeNull();
      expect(response.body.data).toHaveLength(2);
    });

    it("answers 422 for a page_size above the maximum", async () => {
      const response = await files.list({ page_size: 1001 });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([expect.objectContaining({ loc: ["query", "page_size"], type: "less_than_equal" })]);
    });

    it("answers 422 for a negative page", async () => {
      const response = await files.list({ page: -1 });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["query", "page"]);
    });
  });

  describe("filters", () => {
    let files: FilesClient;
    let train: FileOut;
    let requests: FileOut;
    let notes: FileOut;
    let scan: FileOut;

    beforeAll(async () => {
      files = await freshClient();
      train = await files.uploaded({ filename: "Quarterly-Report.JSONL", purpose: "fine-tune" });
      requests = await files.uploaded({ filename: "requests.jsonl", purpose: "batch" });
      notes = await files.uploaded({ filename: "notes.txt", content: "hello\n", purpose: "batch" });
      scan = await files.uploaded({ filename: "scan.pdf", content: "%PDF-1.4\n", type: "application/pdf", purpose: "ocr" });
    });

    const listed = async (query: Parameters<FilesClient["list"]>[0]) => {
      const response = await files.list(query);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return { ids: new Set(ids(response.body.data)), total: response.body.total as number | null };
    };

    it("filters by purpose", async () => {
      expect(await listed({ purpose: "batch" })).toEqual({ ids: new Set([requests.id, notes.id]), total: 2 });
      expect(await listed({ purpose: "ocr" })).toEqual({ ids: new Set([scan.id]), total: 1 });
    });

    it("filters by one sample type", async () => {
      expect(await listed({ sample_type: "batch_request" })).toEqual({ ids: new Set([requests.id, notes.id]), total: 2 });
      expect(await listed({ sample_type: "batch_result" })).toEqual({ ids: new Set(), total: 0 });
    });

    it("filters by a repeated sample type as any of them", async () => {
      expect(await listed({ sample_type: ["instruct", "batch_request"] })).toEqual({
        ids: new Set([train.id, requests.id, notes.id, scan.id]),
        total: 4,
      });
      expect(await listed({ sample_type: ["batch_error", "instruct"] })).toEqual({ ids: new Set([train.id, scan.id]), total: 2 });
    });

    it("filters by source", async () => {
      expect((await listed({ source: "upload" })).total).toBe(4);
      expect(await listed({ source: ["repository", "mistral"] })).toEqual({ ids: new Set(), total: 0 });
    });

    it("filters by a repeated mimetype as any of them", async () => {
      expect(await listed({ mimetypes: "application/pdf" })).toEqual({ ids: new Set([scan.id]), total: 1 });
      expect(await listed({ mimetypes: ["text/plain", "application/pdf"] })).toEqual({ ids: new Set([notes.id, scan.id]), total: 2 });
    });

    it("searches file names case-insensitively by substring", async () => {
      expect(await listed({ search: "report.json" })).toEqual({ ids: new Set([train.id]), total: 1 });
      expect(await listed({ search: "QUEST" })).toEqual({ ids: new Set([requests.id]), total: 1 });
      expect(await listed({ search: "absent" })).toEqual({ ids: new Set(), total: 0 });
    });

    it("combines filters", async () => {
      expect(await listed({ purpose: "batch", search: "notes" })).toEqual({ ids: new Set([notes.id]), total: 1 });
    });

    it("pages through filtered results", async () => {
      const first = await files.list({ purpose: "batch", page_size: 1, page: 0 });
      const second = await files.list({ purpose: "batch", page_size: 1, page: 1 });
      expect(ids(first.body.data)).toEqual([notes.id]);
      expect(ids(second.body.data)).toEqual([requests.id]);
      expect(first.body.total).toBe(2);
    });

    it("answers 422 for an unknown purpose or sample type", async () => {
      expect((await files.list({ purpose: "pretrain" })).status).toBe(422);
      const response = await files.list({ sample_type: ["instruct", "nonsense"] });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["query", "sample_type", 1]);
    });
  });

  it("lists nothing for a workspace without files", async () => {
    const files = await freshClient();
    expect((await files.list()).body).toEqual({ object: "list", data: [], total: 0 });
  });
});
