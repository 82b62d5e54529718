/**
 * The reference page in a real browser: headless Chromium (CHROMIUM_PATH, Debian's `chromium`, else the build of
 * the pinned `@sparticuz/chromium`: test/support/chromium.ts) driven by playwright-core. The page must show every group of the
 * document, and its try-it console must call GET /v1/models with the bearer key the reader enters.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { launchChromium } from "../../support/chromium.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
}, 60_000);
afterAll(() => browser?.close());

describe("GET /docs in headless Chromium", () => {
  it("renders every group of the document, from files this API serves (no request leaves it)", async () => {
    const elsewhere: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(api.url) && !request.url().startsWith("data:")) elsewhere.push(request.url());
    });
    await page.goto(`${api.url}/docs`);
    // Past 100 operations Swagger UI virtualises the list (only what is on screen is in the DOM): each group is
    // looked for through the page's own filter box, as a reader would.
    await page.locator(".operations-virtual, .opblock-tag-section").first().waitFor({ timeout: 30_000 });
    const document = (await (await fetch(`${api.url}/openapi.json`)).json()) as { tags: { name: string }[] };
    const shown: string[] = [];
    for (const { name } of document.tags) {
      await page.locator(".operation-filter-input").fill(name);
      const tag = page.locator(`.opblock-tag[data-tag="${name}"]`).first();
      await tag.waitFor({ timeout: 5_000 }).then(() => shown.push(name), () => undefined);
    }
    await page.locator(".operation-filter-input").fill("");

    expect(shown.toSorted()).toEqual(document.tags.map((tag) => tag.name).toSorted());
    expect(elsewhere).toEqual([]);
  }, 60_000);

  it("calls GET /v1/models from the try-it console with the bearer key entered under Authorize, and shows the 200", async () => {
    await page.getByRole("button", { name: "Authorize" }).first().click();
    // The first scheme of the dialog is the bearer one (components.securitySchemes.bearer).
    const bearer = page.locator(".dialog-ux .auth-container").first();
    await bearer.locator("input").first().fill(tenant.key);
    await bearer.locator("button.modal-btn.authorize").click();
    await page.locator(".dialog-ux button.btn-done").first().click();

    await page.locator(".operation-filter-input").fill("Models");
    const operation = page.locator("#operations-Models-list_models_v1_models_get");
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    const answered = page.waitForResponse((response) => response.url().startsWith(`${api.url}/v1/models`));
    await operation.getByRole("button", { name: "Execute" }).click();
    const response = await answered;

    expect(response.status()).toBe(200);
    expect(response.request().headers().authorization).toBe(`Bearer ${tenant.key}`);
    await expect.poll(() => operation.locator(".live-responses-table tbody .response-col_status").first().textContent()).toContain("200");
  }, 60_000);
});
