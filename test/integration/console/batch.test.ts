/**
 * The console's Batch jobs page in headless Chromium against the embedded API (whose Step Functions stand-in runs
 * jobs in the background): a job created through the page from an uploaded batch file, followed on its page until
 * SUCCESS, its output downloaded; the list's status and progress; cancel of a running job; and what a narrower
 * key sees.
 */
import { readFile } from "node:fs/promises";
import type { Browser, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { BatchJobRecord } from "../../../shared/domain/batch-rules.js";
import { batchStore } from "../../../shared/store/batch.js";
import { useEmbeddedApi } from "../../support/api.js";
import { batchClient, chatLines } from "../../support/batch-client.js";
import { aBatchJob } from "../../support/batch-table.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole } from "../../support/console.js";
import { filesClient } from "../../support/files-client.js";
import { offlineEcho } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const files = filesClient(api, tenant);
const batch = batchClient(api, tenant);

const chromium = useChromium();

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A job written straight to the store, RUNNING with some progress: no execution drives it, so it stays so. */
async function aRunningJob(): Promise<BatchJobRecord> {
  const createdAt = nowSeconds();
  const job = aBatchJob({
    workspace: tenant.caller.workspace,
    organization: tenant.caller.organization,
    owner: tenant.caller.principal,
    createdAt,
    status: "RUNNING",
    startedAt: createdAt,
    totalRequests: 4,
    completedRequests: 1,
    succeededRequests: 1,
    executionArn: null,
  });
  await batchStore.create(job, createdAt * 1000 + Math.floor(Math.random() * 1000));
  return job;
}

/** A console signed in with the tenant's key whose GET /v1/users/me lists its permissions without `dropped`. */
async function narrowedConsole(dropped: string) {
  const c = await openConsole(chromium.browser, api.url, null);
  await c.page.route(`${api.url}/v1/users/me`, async (route: Route) => {
    const response = await route.fetch();
    const me = await response.json();
    await route.fulfill({ response, json: { ...me, permissions: me.permissions.filter((p: string) => p !== dropped) } });
  });
  await c.page.getByLabel("API key").fill(tenant.key);
  await c.page.getByRole("button", { name: "Sign in" }).click();
  await c.page.getByRole("navigation", { name: "Console" }).waitFor();
  return c;
}

describe("the Batch jobs page", () => {
  it("creates a job from an uploaded file, follows it to SUCCESS and downloads its output", async () => {
    const input = await files.uploaded({ filename: "questions.jsonl", content: chatLines("a", "b", "c"), purpose: "batch" });
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/batch", "Batch jobs");
    await page.getByText("No batch job yet.").waitFor();
    await page.getByRole("option", { name: /questions\.jsonl \(3 lines/ }).waitFor({ state: "attached" });
    expect(await c.accessibility()).toEqual([]);

    await page.getByLabel("Input file").selectOption(input.id);
    await page.getByLabel("Endpoint").selectOption("/v1/chat/completions");
    await page.getByLabel("Model").fill("mistral-small-latest");
    await page.getByRole("button", { name: "Create job" }).click();
    await page.getByRole("heading", { level: 1, name: "Batch job", exact: true }).waitFor();
    const jobId = /#\/batch\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    expect(jobId).toBeTruthy();

    // The page refreshes itself while the job runs, and stops once it has ended.
    await page.locator(".batch-status", { hasText: /^SUCCESS$/ }).waitFor({ timeout: 90_000 });
    await page.getByText("Finished.").waitFor();
    await page.getByText("3 of 3 done (3 succeeded, 0 failed)").waitFor();
    expect(await page.getByLabel(`Progress of job ${jobId}`).evaluate((el: HTMLProgressElement) => [el.value, el.max])).toEqual([3, 3]);
    expect(c.requests.filter((r) => r.method === "GET" && r.url === `${api.url}/v1/batch/jobs/${jobId}`).length).toBeGreaterThanOrEqual(1);
    expect(await c.accessibility()).toEqual([]);

    const job = (await batch.get(jobId!)).body;
    expect(job).toMatchObject({ status: "SUCCESS", input_files: [input.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest", total_requests: 3, succeeded_requests: 3, failed_requests: 0, error_file: null });
    expect(await page.getByRole("button", { name: "Download errors" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Cancel job" }).count()).toBe(0);

    const [saved] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download outputs" }).click()]);
    expect(saved.suggestedFilename()).toBe(`batch-${jobId}-output.jsonl`);
    const lines = (await readFile((await saved.path())!, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.map((l) => l.custom_id)).toEqual(["a", "b", "c"]);
    for (const line of lines) {
      expect(line).toMatchObject({ error: null, response: { status_code: 200, body: { object: "chat.completion", choices: [{ message: { content: offlineEcho(`question ${line.custom_id}`) } }] } } });
    }

    // Back to the list: the job with its status and full progress.
    await page.getByRole("link", { name: "All jobs" }).click();
    await page.getByRole("heading", { level: 1, name: "Batch jobs" }).waitFor();
    const row = page.getByRole("row", { name: new RegExp(jobId!) });
    await row.getByText("SUCCESS", { exact: true }).waitFor();
    expect(await row.getByLabel(`Progress of job ${jobId}`).evaluate((el: HTMLProgressElement) => [el.value, el.max])).toEqual([3, 3]);
    await page.getByLabel("Status", { exact: true }).selectOption("CANCELLED");
    await page.getByText("No job with status CANCELLED.").waitFor();
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("follows a running job every 2 s until it is left, and cancels it after asking", async () => {
    const job = await aRunningJob();
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    // The page's timers on a clock the test can move (time still flows); the key stays in session storage across the load.
    await c.page.clock.install();
    await c.page.goto(`${api.url}/console#/batch/${job.id}`);
    await c.page.getByRole("heading", { level: 1, name: "Batch job", exact: true }).waitFor();
    await c.page.locator(".batch-status", { hasText: /^RUNNING$/ }).waitFor();
    await c.page.getByText("1 of 4 done (1 succeeded, 0 failed)").waitFor();
    await c.page.getByText("Refreshing every 2 seconds while it runs.").waitFor();
    expect(await c.accessibility()).toEqual([]);

    // Progress made behind the page shows on the next refresh.
    await batchStore.addCounters(job.workspace, job.id, { completedRequests: 2, succeededRequests: 1, failedRequests: 1 });
    const jobUrl = `${api.url}/v1/batch/jobs/${job.id}`;
    await Promise.all([c.page.waitForRequest(jobUrl), c.page.clock.runFor(2_000)]);
    await c.page.getByText("3 of 4 done (2 succeeded, 1 failed)").waitFor();

    await c.page.getByRole("button", { name: "Cancel job" }).click();
    await c.page.getByRole("button", { name: "Cancel it" }).click();
    await c.page.locator(".batch-status", { hasText: /^CANCELLATION_REQUESTED$/ }).waitFor();
    expect((await batch.get(job.id)).body.status).toBe("CANCELLATION_REQUESTED");
    expect(await c.page.getByRole("button", { name: "Cancel job" }).count()).toBe(0);
    expect(c.requests.filter((r) => r.method === "POST" && r.url === `${api.url}/v1/batch/jobs/${job.id}/cancel`)).toHaveLength(1);
    expect(await c.accessibility()).toEqual([]);

    // Left for another page, the job is no longer asked for, however long the clock runs.
    await c.open("#/files", "Files");
    await c.page.getByRole("heading", { name: "Workspace files" }).waitFor();
    const asked = () => c.requests.filter((r) => r.method === "GET" && r.url === jobUrl).length;
    const before = asked();
    await c.page.clock.runFor(10_000);
    // A request the page sends after the clock ran arrives after any the timers would have sent.
    await Promise.all([c.page.waitForRequest(`${api.url}/console?probe`), c.page.evaluate(() => fetch("/console?probe"))]);
    expect(asked()).toBe(before);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  }, 60_000);

  it("is not offered to a key without batch:read", async () => {
    const viewer = await newTenant({ roles: ["observability_viewer"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, viewer.key);
    const links = await c.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();
    expect(links).not.toContain("Batch jobs");
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });

  it("shows a key with batch:read but not batch:write no create form and no cancel", async () => {
    // No role of permissions.ts holds batch:read without batch:write: the page checks the permissions GET
    // /v1/users/me lists, so the answer is narrowed to what such a role would list.
    const job = await aRunningJob();
    const c = await narrowedConsole("batch:write");
    await c.open("#/batch", "Batch jobs");
    await c.page.getByRole("row", { name: new RegExp(job.id) }).waitFor();
    expect(await c.page.getByRole("heading", { name: "New job" }).count()).toBe(0);
    expect(await c.page.getByRole("button", { name: "Create job" }).count()).toBe(0);
    await c.page.getByRole("row", { name: new RegExp(job.id) }).getByRole("link").click();
    await c.page.getByRole("heading", { level: 1, name: "Batch job", exact: true }).waitFor();
    await c.page.getByText("1 of 4 done (1 succeeded, 0 failed)").waitFor();
    expect(await c.page.getByRole("button", { name: "Cancel job" }).count()).toBe(0);
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});
