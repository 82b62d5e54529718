/**
 * Regenerates the console's screenshots (docs/console/*.png, shown by the README and docs/console.md): a fresh
 * `npm start` in a temporary data directory, a few calls so the pages have something to show, then every page
 * of the navigation in headless Chromium (the browser the tests use). Not compared in tests.
 *
 *   npm run console:screenshots
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "../test/support/chromium.js";
import { openConsole } from "../test/support/console.js";
import { walkConsole } from "../test/support/console-walk.js";

const ROOT = join(import.meta.dirname, "..");
const OUT = join(ROOT, "docs", "console");
const KEY = "console-screenshots-key-0123456789";

const dataDir = mkdtempSync(join(tmpdir(), "console-screenshots-"));
const server = spawn(join(ROOT, "node_modules/.bin/tsx"), ["infra/local/start.ts"], {
  cwd: ROOT,
  env: { ...process.env, PORT: "0", PLATFORM_DATA_DIR: dataDir, PLATFORM_API_KEY: KEY, ACCESS_LOG: "off", POWERTOOLS_LOG_LEVEL: "ERROR" },
  stdio: ["ignore", "pipe", "inherit"],
});
const stop = () => {
  server.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
};

try {
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    server.stdout!.on("data", (chunk: Buffer) => {
      output += String(chunk);
      const found = /Platform API listening on (\S+)/.exec(output)?.[1];
      if (found && /Workspace:\s+\S+/.test(output)) resolve(found);
    });
    server.once("exit", (code) => reject(new Error(`npm start exited (${code}) before serving:\n${output}`)));
  });
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  for (const model of ["mistral-small-latest", "mistral-large-latest", "mistral-small-latest"]) {
    await call("POST", "/v1/chat/completions", { model, messages: [{ role: "user", content: "Summarize our Q3 planning notes in three bullet points." }] });
  }
  await call("POST", "/v1/agents", { name: "support-triage", model: "mistral-small-latest", instructions: "Sort incoming tickets by urgency." });
  const form = new FormData();
  form.append("purpose", "batch");
  form.append("file", new Blob(['{"custom_id":"1","body":{"messages":[{"role":"user","content":"Hello"}]}}\n']), "requests.jsonl");
  await fetch(`${url}/v1/files`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: form });

  mkdirSync(OUT, { recursive: true });
  const browser = await launchChromium();
  const c = await openConsole(browser, url, KEY);
  await walkConsole(c, async (page) => {
    const file = join(OUT, `${page.id.split(/[/?]/)[0]}.png`);
    await c.page.screenshot({ path: file, fullPage: false });
    console.log(`${page.title}: ${file}`);
  });
  await browser.close();
} finally {
  stop();
}
