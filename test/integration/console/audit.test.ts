/**
 * The console's audit log in headless Chromium against the embedded API: two audited changes made through the
 * API (a service account created, then described) read back newest first, with their values in a `<details>`;
 * filtered by target and by operation through the form; paged by the route's cursor; absent from the navigation
 * of a key without `workspaces:admin`.
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole } from "../../support/console.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });

const chromium = useChromium();

async function request(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tenant.key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return text ? JSON.parse(text) : null;
}

/** Two audited changes, in this order: service-account.create, then service-account.update. */
async function aDescribedServiceAccount(): Promise<string> {
  const account = await request("POST", "/v1/service-accounts", { name: `robot-${Math.random().toString(36).slice(2, 8)}`, workspace_id: tenant.caller.workspace });
  await request("PATCH", `/v1/service-accounts/${account.id}`, { description: "Runs the nightly batch" });
  return account.id as string;
}

describe("the audit log", () => {
  it("shows audited changes newest first with their values, filters them, and pages with the route's cursor", async () => {
    const account = await aDescribedServiceAccount();
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    await c.open("#/audit", "Audit log");
    const events = c.page.getByRole("table", { name: "Audit events, newest first" });
    await events.waitFor();
    expect(await c.accessibility()).toEqual([]);

    // Only the changes to this service account, newest first.
    await c.page.getByLabel("Target").fill(account);
    await c.page.getByRole("button", { name: "Apply filters" }).click();
    const operations = events.locator("tbody tr code.audit-operation");
    await expect.poll(() => operations.allTextContents()).toEqual(["service-account.update", "service-account.create"]);
    expect(await c.page.evaluate(() => location.hash)).toBe(`#/audit?target=${account}`);
    const rows = events.locator("tbody tr");
    expect(await rows.nth(0).textContent()).toContain(tenant.caller.keyId);

    // The update's values before and after, behind its <details>.
    const details = rows.nth(0).locator("details");
    expect(await details.getAttribute("open")).toBeNull();
    await details.getByText("Details").click();
    await details.getByTestId("audit-after").waitFor();
    expect(JSON.parse((await details.getByTestId("audit-after").textContent()) ?? "")).toEqual({ description: "Runs the nightly batch" });
    expect(JSON.parse((await details.getByTestId("audit-before").textContent()) ?? "")).toEqual({ description: null });
    expect(await c.accessibility()).toEqual([]);

    // And by operation.
    await c.page.getByLabel("Operation").selectOption("service-account.create");
    await c.page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => operations.allTextContents()).toEqual(["service-account.create"]);
    expect(await c.page.evaluate(() => location.hash)).toBe(`#/audit?operation=service-account.create&target=${account}`);
    expect(await rows.nth(0).textContent()).toContain(account);

    // One event a page: the next page through the route's cursor, and back.
    await c.page.getByLabel("Operation").selectOption("");
    await c.page.getByLabel("Events per page").fill("1");
    await c.page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => operations.allTextContents()).toEqual(["service-account.update"]);
    await c.page.getByRole("button", { name: "Older events" }).click();
    await expect.poll(() => operations.allTextContents()).toEqual(["service-account.create"]);
    expect(await c.page.getByText("Page 2: 1 event matching the filters, newest first.").count()).toBe(1);
    const cursors = c.requests.filter((r) => r.url.includes("/v1/admin/audit-events") && new URL(r.url).searchParams.has("cursor"));
    expect(cursors).toHaveLength(1);
    expect(new URL(cursors[0]!.url).searchParams.get("page_size")).toBe("1");
    await c.page.getByRole("button", { name: "Newer events" }).click();
    await expect.poll(() => operations.allTextContents()).toEqual(["service-account.update"]);
    expect(await c.accessibility()).toEqual([]);

    // A time range that ends before the changes shows none of them.
    await c.page.getByLabel("Until").fill("2020-01-01T00:00");
    await c.page.getByRole("button", { name: "Apply filters" }).click();
    await c.page.getByText("No event matches these filters.").waitFor();
    expect(await c.page.evaluate(() => decodeURIComponent(location.hash))).toContain("until=2020-01-01T00:00:59.999Z");

    await c.page.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(() => c.page.evaluate(() => location.hash)).toBe("#/audit");
    await expect.poll(() => operations.count()).toBeGreaterThanOrEqual(2);
    expect(await c.page.getByLabel("Target").inputValue()).toBe("");
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });

  it("is not offered to a key without workspaces:admin", async () => {
    const user = await newTenant({ roles: ["user"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, user.key);
    const links = await c.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();
    expect(links).toContain("Agents and prompts");
    expect(links).not.toContain("Audit log");
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});
