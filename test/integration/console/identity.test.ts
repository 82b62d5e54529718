/**
 * Keys, service accounts, workspaces and members through the console in headless Chromium: every change made on
 * the page is checked through the API, a new key's secret is shown once and works, a revoked one stops working,
 * narrower keys see fewer pages and buttons, and another organization's keys never show.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { tenancyStore } from "../../../shared/store/tenancy.js";
import { useEmbeddedApi } from "../../support/api.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole, type ConsolePage } from "../../support/console.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });

const chromium = useChromium();
beforeAll(async () => {
  // The organization record `npm start`'s bootstrap makes (newTenant makes workspaces and keys only).
  await tenancyStore.putOrganization({ id: tenant.caller.organization, name: "Test organization", createdAt: new Date().toISOString() });
});

const get = async <T>(path: string, key = tenant.key): Promise<{ status: number; body: T }> => {
  const response = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json().catch(() => null)) as T };
};

const navLinks = (c: ConsolePage) => c.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();

describe("users, members and their keys", () => {
  it("creates a user, adds it to the workspace, gives it a key shown once, and revokes it", async () => {
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const email = `ada-${Date.now()}@example.com`;

    await c.open("#/workspaces", "Workspaces and members");
    await c.page.getByLabel("Email").fill(email);
    await c.page.getByRole("button", { name: "Create user" }).click();
    await c.page.getByRole("cell", { name: email, exact: true }).waitFor();
    const users = await get<{ data: { id: string; email: string }[] }>("/v1/admin/users?page_size=1000");
    const user = users.body.data.find((u) => u.email === email)!;
    expect(user).toBeTruthy();

    await c.page.getByLabel("User to add").selectOption({ label: email });
    await c.page.getByLabel("Role", { exact: true }).selectOption("user");
    await c.page.getByRole("button", { name: "Add member" }).click();
    await c.page.getByRole("table", { name: /^Members of/ }).getByRole("cell", { name: email, exact: true }).waitFor();
    const members = await get<{ data: { user_id: string; roles: string[] }[] }>(`/v1/admin/workspaces/${tenant.caller.workspace}/users`);
    expect(members.body.data.find((m) => m.user_id === user.id)?.roles).toEqual(["user"]);
    expect(await c.accessibility()).toEqual([]);

    await c.open("#/keys", "Keys and service accounts");
    await c.page.getByLabel("User", { exact: true }).selectOption({ label: email });
    await c.page.getByLabel("Key name").fill("ada's laptop");
    await c.page.getByRole("button", { name: "Create key" }).click();
    const secret = (await c.page.locator("[data-secret]").textContent())!;
    expect(secret.length).toBeGreaterThan(20);
    expect(await c.accessibility()).toEqual([]);
    const me = await get<{ id: string; email: string; roles: string[] }>("/v1/users/me", secret);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: user.id, email });
    expect(me.body.roles.toSorted()).toEqual(["member", "user"]);
    // Listed without its secret.
    expect(await c.page.getByRole("table", { name: "API keys of the workspace" }).textContent()).not.toContain(secret);

    await c.page.getByRole("button", { name: "Revoke ada's laptop" }).click();
    await c.page.getByRole("button", { name: "Revoke now" }).click();
    await expect.poll(async () => (await get("/v1/users/me", secret)).status).toBe(401);
    await expect.poll(() => c.page.getByRole("button", { name: "Revoke ada's laptop" }).count()).toBe(0);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });

  it("creates a service account, gives it a role and a key that acts with it, and revokes the key", async () => {
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    await c.open("#/keys", "Keys and service accounts");
    await c.page.getByLabel("Service account name").fill("nightly-batch");
    await c.page.getByRole("button", { name: "Create service account" }).click();
    const detail = c.page.getByRole("region", { name: "Service account nightly-batch" });
    await detail.getByRole("checkbox", { name: "observability_viewer" }).check();
    await detail.getByRole("button", { name: "Save roles" }).click();
    await expect.poll(() => detail.getByRole("button", { name: "Save roles" }).isDisabled()).toBe(true);
    await detail.getByRole("button", { name: "Create a key for nightly-batch" }).click();
    const secret = (await detail.locator("[data-secret]").textContent())!;
    const me = await get<{ type: string; roles: string[]; permissions: string[] }>("/v1/users/me", secret);
    expect(me.body).toMatchObject({ type: "service_account", roles: ["observability_viewer"] });
    expect(me.body.permissions).toContain("observability:read");
    expect(me.body.permissions).not.toContain("files:read");
    expect(await c.accessibility()).toEqual([]);
    await detail.getByRole("button", { name: /^Revoke / }).click();
    await detail.getByRole("button", { name: "Revoke now" }).click();
    await expect.poll(async () => (await get("/v1/users/me", secret)).status).toBe(401);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});

describe("what a narrower key sees", () => {
  it("a workspace admin manages service accounts but sees no users' keys, workspaces or audit log", async () => {
    const admin = await newTenant({ roles: ["workspace_admin"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, admin.key);
    expect(await navLinks(c)).toEqual(expect.arrayContaining(["Keys"]));
    expect(await navLinks(c)).not.toEqual(expect.arrayContaining(["Workspaces"]));
    expect(await navLinks(c)).not.toContain("Audit log");
    await c.open("#/keys", "Keys and service accounts");
    await c.page.getByRole("heading", { name: "Service accounts", exact: true }).waitFor();
    expect(await c.page.getByRole("heading", { name: "API keys", exact: true }).count()).toBe(0);
    expect(await c.page.getByRole("button", { name: "Create key" }).count()).toBe(0);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });

  it("a user sees neither keys nor workspaces, and the page it may not see falls back to one it may", async () => {
    const user = await newTenant({ roles: ["user"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, user.key);
    const links = await navLinks(c);
    expect(links).not.toContain("Keys");
    expect(links).not.toContain("Workspaces");
    await c.page.evaluate(() => (location.hash = "#/keys"));
    await c.page.getByRole("heading", { level: 1 }).waitFor();
    expect(await c.page.getByRole("heading", { level: 1 }).textContent()).not.toBe("Keys and service accounts");
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });

  it("an admin of another organization never sees this one's keys or users", async () => {
    const other = await newTenant();
    const c = await openConsole(chromium.browser, api.url, other.key);
    await c.open("#/keys", "Keys and service accounts");
    await c.page.getByRole("heading", { name: "API keys", exact: true }).waitFor();
    const ours = await get<{ data: { name: string; preview: string }[] }>(`/v1/admin/api-keys?workspace_id=${tenant.caller.workspace}&include_revoked=true`);
    expect(ours.body.data.length).toBeGreaterThan(0);
    const shown = (await c.page.locator("main").textContent()) ?? "";
    for (const key of ours.body.data) expect(shown).not.toContain(key.preview);
    // The page's own calls are tenant-checked too: asking for this organization's workspace finds nothing.
    const foreign = await get<{ data: unknown[] }>(`/v1/admin/api-keys?workspace_id=${tenant.caller.workspace}&include_revoked=true`, other.key);
    expect(foreign).toEqual({ status: 200, body: expect.objectContaining({ data: [] }) });
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});
