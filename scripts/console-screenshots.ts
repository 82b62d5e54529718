/**
 * Regenerates the console's screenshots (docs/console/*.png, shown by the README and docs/console.md): a fresh
 * `npm start` in a temporary data directory, a few calls so the pages have something to show, then every page
 * of the navigation in headless Chromium (the browser the tests use). Not compared in tests.
 *
 *   npm run console:screenshots
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startNpmStart } from "../bench/npm-start.js";
import { launchChromium } from "../test/support/chromium.js";
import { openConsole } from "../test/support/console.js";
import { walkConsole } from "../test/support/console-walk.js";

const OUT = join(import.meta.dirname, "..", "docs", "console");

const server = await startNpmStart();
try {
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  for (const model of ["mistral-small-latest", "mistral-large-latest", "mistral-small-latest"]) {
    await call("POST", "/v1/chat/completions", { model, messages: [{ role: "user", content: "Summarize our Q3 planning notes in three bullet points." }] });
  }
  await call("POST", "/v1/agents", { name: "support-triage", model: "mistral-small-latest", instructions: "Sort incoming tickets by urgency." });
  const form = new FormData();
  form.append("purpose", "batch");
  form.append("file", new Blob(['{"custom_id":"1","body":{"messages":[{"role":"user","content":"Hello"}]}}\n']), "requests.jsonl");
  await fetch(`${server.url}/v1/files`, { method: "POST", headers: { authorization: `Bearer ${server.key}` }, body: form });

  mkdirSync(OUT, { recursive: true });
  const browser = await launchChromium();
  const c = await openConsole(browser, server.url, server.key);
  await walkConsole(c, async (page) => {
    const file = join(OUT, `${page.id.split(/[/?]/)[0]}.png`);
    await c.page.screenshot({ path: file });
    console.log(`${page.title}: ${file}`);
  });
  await browser.close();
} finally {
  await server.stop();
}
