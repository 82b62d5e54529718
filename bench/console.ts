/**
 * `npm run bench:console`: what the web console costs a browser. The first load's bytes (the entry, its script
 * and stylesheet, gzipped as a CDN or the distribution serves them; the issue's bound is 200 KB), then, on a
 * fresh `npm start` with a little data, each page of the navigation: from the click on its link to its heading
 * and its data shown (no "Loading…" left), over ROUNDS rounds (the bound is one second).
 * Prints one line per page with p50 and the worst round.
 */
import { gzipSync } from "node:zlib";
import { buildConsole } from "../console/build.js";
import { launchChromium } from "../test/support/chromium.js";
import { openConsole } from "../test/support/console.js";
import { walkConsole } from "../test/support/console-walk.js";
import { startNpmStart } from "./npm-start.js";
import { median } from "./stats.js";

const ROUNDS = Number(process.env.ROUNDS ?? 5);

const built = await buildConsole();
const sizes = built.assets.map((a) => ({ name: a.name, bytes: a.body.length, gzipped: gzipSync(a.body, { level: 9 }).length }));
const server = await startNpmStart();
try {
  const entry = await (await fetch(`${server.url}/console`)).arrayBuffer();
  const entryGzipped = gzipSync(Buffer.from(entry), { level: 9 }).length;
  console.log(`first load: entry ${entry.byteLength} B (${entryGzipped} B gzipped); ${sizes.map((s) => `${s.name} ${(s.bytes / 1024).toFixed(1)} KB (${(s.gzipped / 1024).toFixed(1)} KB gzipped)`).join("; ")}`);
  console.log(`first load total, gzipped: ${((entryGzipped + sizes.reduce((sum, s) => sum + s.gzipped, 0)) / 1024).toFixed(1)} KB (bound 200 KB)`);

  await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "mistral-small-latest", messages: [{ role: "user", content: "Hello" }] }),
  });
  const browser = await launchChromium();
  const signInStarted = performance.now();
  const c = await openConsole(browser, server.url, server.key);
  console.log(`sign-in to the navigation (cold, the build on first request included): ${(performance.now() - signInStarted).toFixed(0)} ms`);
  const timings = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const page of await walkConsole(c, async () => undefined)) timings.set(page.title, [...(timings.get(page.title) ?? []), page.shownMs]);
  }
  console.log(`\npage (${ROUNDS} rounds)        p50 ms   worst ms`);
  for (const [title, samples] of timings) console.log(`${title.padEnd(24)} ${median(samples).toFixed(0).padStart(6)} ${Math.max(...samples).toFixed(0).padStart(10)}`);
  if (c.problems.length > 0) console.log(`\nproblems in the page: ${c.problems.join("; ")}`);
  await browser.close();
} finally {
  await server.stop();
}
