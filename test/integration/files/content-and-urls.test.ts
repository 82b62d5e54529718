import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { fetchAnonymously, filesClient, follow, randomContent } from "../../support/files-client.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);

const HOUR_MS = 3600 * 1000;

describe("GET /v1/files/{file_id}/content", () => {
  it("redirects to a presigned URL that serves the exact bytes as octet-stream", async () => {
    const content = randomContent(70_000);
    const file = await files.uploaded({ filename: "blob.bin", content, purpose: "batch" });

    const response = await files.content(file.id);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.searchParams.get("X-Amz-Signature")).toBeTruthy();
    expect(location.pathname).toContain(file.id);

    const download = await follow(response);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.headers.get("content-disposition")).toContain("blob.bin");
    expect(download.bytes.equals(content)).toBe(true);
  });

  it("answers 404 for an unknown file", async () => {
    const response = await files.content(randomUUID());
    expect(response.status).toBe(404);
    expect(response.body.code).toBe("file_not_found");
  });
});

describe("GET /v1/files/{file_id}/url, redeemed by GET /v1/files/{file_id}/download", () => {
  it("answers a URL that downloads the bytes without a key", async () => {
    const content = randomContent(4096);
    const file = await files.uploaded({ filename: "report.bin", content, purpose: "ocr" });

    const response = await files.signedUrl(file.id, 1);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(Object.keys(response.body)).toEqual(["url"]);
    const url = new URL(response.body.url);
    expect(url.origin).toBe(api.url);
    expect(url.pathname).toBe(`/v1/files/${file.id}/download`);

    const redirect = await fetchAnonymously(response.body.url);
    expect(redirect.status).toBe(302);
    const download = await follow(redirect);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.bytes.equals(content)).toBe(true);
  });

  it("refuses a tampered token with 403", async () => {
    const file = await files.uploaded();
    const url = new URL((await files.signedUrl(file.id)).body.url);
    const [payload, signature] = url.searchParams.get("token")!.split(".");
    // A longer life claimed under the original signature.
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
    const stretched = Buffer.from(JSON.stringify({ ...claims, e: claims.e + 3600 })).toString("base64url");
    for (const token of [`${stretched}.${signature}`, `${payload}.${signature!.slice(0, -2)}AA`, "garbage"]) {
      url.searchParams.set("token", token);
      const response = await fetchAnonymously(url.toString());
      expect(response.status, token).toBe(403);
      expect(response.body).toMatchObject({ object: "error", type: "permission_error" });
    }
  });

  it("refuses a token minted for another file with 403", async () => {
    const mine = await files.uploaded({ filename: "a.jsonl" });
    const other = await files.uploaded({ filename: "b.jsonl" });
    const url = new URL((await files.signedUrl(mine.id)).body.url);
    url.pathname = `/v1/files/${other.id}/download`;
    expect((await fetchAnonymously(url.toString())).status).toBe(403);
  });

  it("answers 422 without a token on the download route", async () => {
    const file = await files.uploaded();
    const response = await fetchAnonymously(`${api.url}/v1/files/${file.id}/download`);
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["query", "token"]);
  });

  it("answers 422 for an expiry of 0 or more than 168 hours", async () => {
    const file = await files.uploaded();
    for (const expiry of [0, 169]) {
      const response = await files.signedUrl(file.id, expiry);
      expect(response.status, `expiry=${expiry}`).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["query", "expiry"]);
    }
    expect((await files.signedUrl(file.id, 168)).status).toBe(200);
  });

  it("answers 404 for an unknown file", async () => {
    expect((await files.signedUrl(randomUUID())).status).toBe(404);
  });

  describe("lifetime (on a fake clock the in-process handlers share)", () => {
    const start = new Date("2030-01-01T00:00:00.000Z").getTime();

    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["Date"] });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    /** Mints a URL at `start` and redeems it `afterMs` later; the answer's status. */
    async function redeemAfter(url: string, afterMs: number): Promise<number> {
      vi.setSystemTime(start + afterMs);
      return (await fetchAnonymously(url)).status;
    }

    async function mint(expiry?: number): Promise<string> {
      const file = await files.uploaded();
      vi.setSystemTime(start);
      const response = await files.signedUrl(file.id, expiry);
      expect(response.status).toBe(200);
      return response.body.url;
    }

    it("works until just before the expiry and is refused from then on", async () => {
      const url = await mint(3);
      expect(await redeemAfter(url, 3 * HOUR_MS - 1000)).toBe(302);
      expect(await redeemAfter(url, 3 * HOUR_MS)).toBe(403);
      vi.setSystemTime(start + 3 * HOUR_MS + 1000);
      const refused = await fetchAnonymously(url);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ type: "permission_error", code: "signed_url_expired" });
    });

    it("lives 24 hours when no expiry is given", async () => {
      const url = await mint();
      expect(await redeemAfter(url, 24 * HOUR_MS - 1000)).toBe(302);
      expect(await redeemAfter(url, 24 * HOUR_MS)).toBe(403);
    });

    it("stays valid for the full 168 hours", async () => {
      const url = await mint(168);
      expect(await redeemAfter(url, 168 * HOUR_MS - 1000)).toBe(302);
      expect(await redeemAfter(url, 168 * HOUR_MS)).toBe(403);
    });
  });
});
