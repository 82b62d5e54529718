/**
 * The console's Files page in headless Chromium against the embedded API: uploads through the page (a small file
 * through POST /v1/files, a file over the inline limit through presigned parts PUT straight to storage), with
 * the API listing both with their bytes; download, delete, the purpose filter; and what a narrower key sees.
 */
import { readFile } from "node:fs/promises";
import type { Browser, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { INLINE_UPLOAD_MAX_BYTES } from "../../../shared/services/files/files.js";
import { useEmbeddedApi } from "../../support/api.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole } from "../../support/console.js";
import { filesClient, jsonl } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const files = filesClient(api, tenant);

const chromium = useChromium();

const listed = async () => (await files.list({ page_size: 100 })).body.data as { id: string; filename: string; bytes: number; purpose: string; num_lines: number | null }[];

describe("the Files page", () => {
  it("uploads a small and a large file with progress, lists, downloads and deletes them", async () => {
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/files", "Files");
    await page.getByText("No file yet.").waitFor();
    expect(await c.accessibility()).toEqual([]);

    // A small file: one POST /v1/files.
    const small = Buffer.from(jsonl(7));
    await page.getByLabel("File", { exact: true }).setInputFiles({ name: "small.jsonl", mimeType: "application/jsonl", buffer: small });
    await page.getByLabel("Purpose of the upload").selectOption("batch");
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Uploaded small.jsonl" }).waitFor();
    await page.getByRole("row", { name: /small\.jsonl/ }).waitFor();
    expect(await page.getByLabel("Upload progress").evaluate((el: HTMLProgressElement) => [el.value, el.max])).toEqual([small.length, small.length]);
    expect(await listed()).toEqual([expect.objectContaining({ filename: "small.jsonl", bytes: small.length, purpose: "batch", num_lines: 7 })]);
    expect(c.requests.filter((r) => r.method === "POST" && r.url === `${api.url}/v1/files`)).toHaveLength(1);
    expect(await c.accessibility()).toEqual([]);

    // A large one, a few MB over the inline limit: parts PUT to their presigned URLs, then completed.
    const large = Buffer.from(jsonl(Math.ceil((INLINE_UPLOAD_MAX_BYTES + 3_000_000) / 150), 120));
    expect(large.length).toBeGreaterThan(INLINE_UPLOAD_MAX_BYTES + 2_000_000);
    await page.getByLabel("File", { exact: true }).setInputFiles({ name: "large.jsonl", mimeType: "application/jsonl", buffer: large });
    await page.getByLabel("Purpose of the upload").selectOption("fine-tune");
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Uploaded large.jsonl" }).waitFor({ timeout: 60_000 });
    await page.getByRole("row", { name: /large\.jsonl/ }).waitFor();
    expect(await page.getByLabel("Upload progress").evaluate((el: HTMLProgressElement) => [el.value, el.max])).toEqual([large.length, large.length]);
    const puts = c.requests.filter((r) => r.method === "PUT");
    expect(puts.length).toBeGreaterThanOrEqual(1);
    expect(puts.every((r) => !r.url.startsWith(api.url) && r.headers.authorization === undefined)).toBe(true);
    expect(c.requests.filter((r) => r.method === "POST" && r.url.endsWith("/complete"))).toHaveLength(1);
    expect(c.requests.filter((r) => r.method === "POST" && r.url === `${api.url}/v1/files`)).toHaveLength(1);
    const both = await listed();
    expect(both).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ filename: "small.jsonl", bytes: small.length }),
        expect.objectContaining({ filename: "large.jsonl", bytes: large.length, purpose: "fine-tune", num_lines: large.toString().trim().split("\n").length }),
      ]),
    );
    expect(both).toHaveLength(2);

    // The purpose filter asks the API for that purpose only.
    await page.getByLabel("Purpose", { exact: true }).selectOption("ocr");
    await page.getByText("No file of purpose ocr.").waitFor();
    await page.getByLabel("Purpose", { exact: true }).selectOption("fine-tune");
    await page.getByRole("row", { name: /large\.jsonl/ }).waitFor();
    expect(await page.getByRole("row", { name: /small\.jsonl/ }).count()).toBe(0);
    await page.getByLabel("Purpose", { exact: true }).selectOption("");
    await page.getByRole("row", { name: /small\.jsonl/ }).waitFor();

    // Download: the bytes as uploaded.
    const [saved] = await Promise.all([page.waitForEvent("download"), page.getByRole("row", { name: /small\.jsonl/ }).getByRole("button", { name: "Download" }).click()]);
    expect(saved.suggestedFilename()).toBe("small.jsonl");
    expect(await readFile((await saved.path())!)).toEqual(small);

    // Delete asks first, then the file is gone from the page and the API.
    const row = page.getByRole("row", { name: /small\.jsonl/ });
    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Delete for good" }).click();
    await page.getByRole("row", { name: /small\.jsonl/ }).waitFor({ state: "detached" });
    expect((await listed()).map((f) => f.filename)).toEqual(["large.jsonl"]);
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("pages through the list", async () => {
    const own = await newTenant();
    const mine = filesClient(api, own);
    for (let i = 0; i < 22; i++) await mine.uploaded({ filename: `f${String(i).padStart(2, "0")}.jsonl`, content: jsonl(1), purpose: "batch" });
    const c = await openConsole(chromium.browser, api.url, own.key);
    await c.open("#/files", "Files");
    await c.page.getByText("Page 1 of 2 (22 files)").waitFor();
    expect(await c.page.getByRole("row").count()).toBe(21);
    await c.page.getByRole("button", { name: "Next page" }).click();
    await c.page.getByText("Page 2 of 2 (22 files)").waitFor();
    await expect.poll(() => c.page.getByRole("row").count()).toBe(3);
    const names = [...(await c.page.getByRole("cell", { name: /^f\d\d\.jsonl$/ }).allTextContents())];
    expect(names).toHaveLength(2);
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  }, 60_000);

  it("is not offered to a key without files:read", async () => {
    const viewer = await newTenant({ roles: ["observability_viewer"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, viewer.key);
    const links = await c.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();
    expect(links).not.toContain("Files");
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });

  it("shows a key with files:read but not files:write no Upload and no Delete", async () => {
    // No role of permissions.ts holds files:read without files:write (user and up hold both): the page's check is
    // of the permissions GET /v1/users/me lists, so this key's answer is narrowed to files:read, as such a role would be.
    await files.uploaded({ filename: "kept.jsonl", content: jsonl(2), purpose: "batch" });
    const c = await openConsole(chromium.browser, api.url, null);
    await c.page.route(`${api.url}/v1/users/me`, async (route: Route) => {
      const response = await route.fetch();
      const me = await response.json();
      await route.fulfill({ response, json: { ...me, permissions: me.permissions.filter((p: string) => p !== "files:write") } });
    });
    await c.page.getByLabel("API key").fill(tenant.key);
    await c.page.getByRole("button", { name: "Sign in" }).click();
    await c.open("#/files", "Files");
    await c.page.getByRole("row", { name: /kept\.jsonl/ }).waitFor();
    expect(await c.page.getByRole("heading", { name: "Upload a file" }).count()).toBe(0);
    expect(await c.page.getByRole("button", { name: "Upload" }).count()).toBe(0);
    expect(await c.page.getByRole("button", { name: "Delete" }).count()).toBe(0);
    expect(await c.page.getByRole("row", { name: /kept\.jsonl/ }).getByRole("button", { name: "Download" }).count()).toBe(1);
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});
