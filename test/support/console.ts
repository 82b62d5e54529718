/**
 * The web console in headless Chromium (test/support/chromium.ts): a page signed in with a key, which records
 * every console error, uncaught exception, failed request and error answer as a problem, and axe-core's
 * accessibility check of what it shows.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";

const axeSource = () => readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface ConsolePage {
  page: Page;
  /** What went wrong in the page since it opened (or since the last `expectedProblems`). */
  problems: string[];
  /** Every request the page sent, with its headers. */
  requests: { method: string; url: string; headers: Record<string, string> }[];
  /** Goes to a hash route and waits for its heading. */
  open(route: string, heading: string | RegExp): Promise<void>;
  /** axe-core's violations on the page as it is now (WCAG 2 A and AA rules). */
  accessibility(): Promise<{ id: string; impact: string | null; help: string; nodes: string[] }[]>;
}

export async function openConsole(browser: Browser, apiUrl: string, key: string | null): Promise<ConsolePage> {
  // A locale of its own: the default comes from the environment (`en-US@posix` under LANG=C), which Intl refuses.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US", timezoneId: "UTC" });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: ConsolePage["requests"] = [];
  page.on("request", (request) => requests.push({ method: request.method(), url: request.url(), headers: request.headers() }));
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
  page.on("pageerror", (error) => problems.push(`exception: ${error.message}`));
  page.on("requestfailed", (request) => {
    // A download's object URL revoked after the save, or a stream the page aborted itself, is not a failure.
    if (request.url().startsWith("blob:") || request.failure()?.errorText === "net::ERR_ABORTED") return;
    problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ""}`);
  });
  page.on("response", (response) => response.status() >= 400 && problems.push(`answered ${response.status()}: ${response.request().method()} ${response.url()}`));
  await page.goto(`${apiUrl}/console`);
  if (key) {
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation", { name: "Console" }).waitFor();
  }
  let axeLoaded = false;
  return {
    page,
    problems,
    requests,
    async open(route, heading) {
      await page.evaluate((hash) => (location.hash = hash), route);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
    },
    async accessibility() {
      // Evaluated through the DevTools protocol: the page's CSP (no inline script) does not apply to it.
      if (!axeLoaded) await page.evaluate(axeSource());
      axeLoaded = true;
      const result = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
        return axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } });
      });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) }));
    },
  };
}
