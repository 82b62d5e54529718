/**
 * The console's shell in headless Chromium against the embedded API: its page and assets as served (CSP,
 * caching), sign-in with a key kept in session storage only, the navigation a key's permissions allow, and
 * axe-core on what it shows.
 */
import { describe, expect, it } from "vitest";
import { bookkeepingSettled } from "../../../shared/observability/after-answer.js";
import { useEmbeddedApi } from "../../support/api.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole } from "../../support/console.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });

const chromium = useChromium();

describe("GET /console and GET /console/{asset}", () => {
  it("serves the entry with a strict CSP and hashed assets cached for a year", async () => {
    const entry = await fetch(`${api.url}/console`);
    expect(entry.status).toBe(200);
    expect(entry.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = entry.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await entry.text();
    const script = /src="console\/(app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    const style = /href="console\/(app-[A-Z0-9]+\.css)"/.exec(html)?.[1];
    expect(script && style).toBeTruthy();
    const asset = await fetch(`${api.url}/console/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await fetch(`${api.url}/console/app-NOPE.js`)).status).toBe(404);
    expect((await fetch(`${api.url}/console/..%2Fpackage.json`)).status).toBe(422);
  });
});

describe("signing in", () => {
  it("refuses a wrong key with the API's message and keeps nothing", async () => {
    const console = await openConsole(chromium.browser, api.url, null);
    await console.page.getByLabel("API key").fill("not-a-key");
    await console.page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => console.page.getByRole("alert").textContent()).toBeTruthy();
    expect(await console.page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await console.accessibility()).toEqual([]);
    // The refused sign-in is the only error answer (and the browser's own line about it).
    expect(console.problems).toHaveLength(2);
    expect(console.problems).toEqual(expect.arrayContaining([`answered 401: GET ${api.url}/v1/users/me`, expect.stringMatching(/^console: .*401/)]));
    await console.page.context().close();
  });

  it("keeps the key in session storage, sends it only as the bearer header, and shows the overview", async () => {
    const console = await openConsole(chromium.browser, api.url, tenant.key);
    await console.open("#/overview", "Overview");
    await console.page.getByText("This month's spend").waitFor();
    await console.page.getByTestId("spend").waitFor();
    expect(await console.page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([1, 0, ""]);
    const calls = console.requests.filter((r) => r.url.includes("/v1/"));
    expect(calls.map((r) => r.url)).toEqual(expect.arrayContaining([`${api.url}/v1/users/me`, `${api.url}/v1/usage/spend`]));
    expect(calls.every((r) => r.headers.authorization === `Bearer ${tenant.key}` && !r.headers.cookie)).toBe(true);
    expect(await console.accessibility()).toEqual([]);
    expect(console.problems).toEqual([]);
    await console.page.getByRole("button", { name: "Sign out" }).click();
    await console.page.getByLabel("API key").waitFor();
    expect(await console.page.evaluate(() => sessionStorage.length)).toBe(0);
    await console.page.context().close();
  });

  it("offers a narrow key only the pages its permissions allow", async () => {
    const viewer = await newTenant({ roles: ["observability_viewer"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const console = await openConsole(chromium.browser, api.url, viewer.key);
    const links = await console.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();
    expect(links).toEqual(["Overview", "Observability"]);
    await console.open("#/overview", "Overview");
    await console.page.getByText("Errors and latency").waitFor();
    expect(await console.page.getByText("This month's spend").count()).toBe(0);
    expect(console.problems).toEqual([]);
    await console.page.context().close();
  });
});

describe("the overview", () => {
  it("shows the month's spend and the day's requests move once a model call's bookkeeping is done", async () => {
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    await c.open("#/overview", "Overview");
    const before = (await c.page.getByTestId("spend").textContent())!;
    const call = await fetch(`${api.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "mistral-small-latest", messages: [{ role: "user", content: "How much does this cost?" }] }),
    });
    expect(call.status).toBe(200);
    await bookkeepingSettled();
    const spend = (await (await fetch(`${api.url}/v1/usage/spend`, { headers: { authorization: `Bearer ${tenant.key}` } })).json()) as { spent: number };
    expect(spend.spent).toBeGreaterThan(0);

    await c.page.reload();
    await c.page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await expect.poll(() => c.page.getByTestId("spend").textContent()).not.toBe(before);
    const table = c.page.getByRole("table", { name: "Usage by model over the last 30 days" });
    await table.getByRole("cell", { name: "mistral-small-latest" }).waitFor();
    expect(await table.getByRole("row").nth(1).getByRole("cell").nth(1).textContent()).toBe("1");
    expect(await c.page.getByRole("img", { name: /^Requests per day, by model/ }).count()).toBe(1);
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});
