/**
 * The console on a fresh `npm start`, as its banner offers it: signed in with the printed key, every page of the
 * navigation opens with its data, passes axe-core, and nothing fails in the page (no console error, no failed
 * request, no error answer). The flows of each page run against the embedded API (test/integration/console/).
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.js";
import { openConsole } from "../support/console.js";
import { walkConsole } from "../support/console-walk.js";
import { startNpmStart, useNpmStartDirs, type StartedProcess } from "../support/local-process.js";

const dirs = useNpmStartDirs("console-start-");
let server: StartedProcess;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startNpmStart({ dataDir: dirs.dataDir(), key: "console-ring-key-0123456789abcdef" }), launchChromium()]);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.kill();
});

it("signs in with the banner's key and walks every page of a fresh npm start, accessible and without a failure", async () => {
  // The banner's last lines may follow the one the start waited for.
  await expect.poll(() => server.output()).toContain(`Web console:         ${server.url}/console`);
  const c = await openConsole(browser, server.url, server.key);
  const violations: Record<string, unknown[]> = {};
  const pages = await walkConsole(c, async (page) => {
    const found = await c.accessibility();
    if (found.length > 0) violations[page.id] = found;
  });
  expect(pages.map((p) => p.title)).toEqual(["Overview", "Playground", "Files", "Batch jobs", "Agents and prompts", "Workflows", "Observability", "Keys", "Workspaces", "Audit log"]);
  expect(violations).toEqual({});
  expect(c.problems).toEqual([]);
}, 180_000);
