/**
 * `npm run bench:openapi`: prints figures about the API reference, asserts nothing (docs/benchmarks.md §10).
 *
 *  1. Generating the OpenAPI document from the route table (infra/openapi/document.ts): the first time
 *     (importing every handler module, as the build and a source run's first GET /openapi.json do) and again.
 *  2. Its size, raw and gzipped, and the renderer's files GET /docs serves.
 *  3. Serving it: GET /openapi.json and GET /docs invoked in-process (the handler chain, the document
 *     cached per container), 300 times each.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { rendererDir, RENDERER_ASSETS } from "../functions/docs/reference.js";
import { routes } from "../functions/routes.js";
import { summarize, table } from "./stats.js";

const log = (line = "") => console.log(line);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${value.toFixed(2)} ms`;
log(`OpenAPI benchmark ${new Date().toISOString()}, ${cpus().length} cores, Node ${process.version}, load average ${loadavg()[0]!.toFixed(2)}`);

const started = performance.now();
const { openApiDocument } = await import("../infra/openapi/document.js");
const document = await openApiDocument();
const first = performance.now() - started;
const again = performance.now();
await openApiDocument();
const second = performance.now() - again;
const json = Buffer.from(JSON.stringify(document));
log();
log(table([
  ["document", "value"],
  ["operations (route rows)", String(routes.length)],
  ["component schemas", String(Object.keys(document.components.schemas).length)],
  ["first generation (imports every handler)", ms(first)],
  ["generation again (modules loaded)", ms(second)],
  ["size", kb(json.length)],
  ["size gzipped", kb(gzipSync(json).length)],
  ...Object.keys(RENDERER_ASSETS).map((name) => {
    const bytes = readFileSync(join(rendererDir(), name));
    return [`${name} (raw / gzipped)`, `${kb(bytes.length)} / ${kb(gzipSync(bytes).length)}`];
  }),
]));

const { anEvent, aContext } = await import("../test/support/builders.js");
const { handler: openapi } = await import("../functions/docs/openapi.js");
const { handler: page } = await import("../functions/docs/page.js");
const timed = async (name: string, call: () => Promise<unknown>) => {
  for (let i = 0; i < 20; i += 1) await call();
  const samples: number[] = [];
  for (let i = 0; i < 300; i += 1) {
    const t = performance.now();
    await call();
    samples.push(performance.now() - t);
  }
  const s = summarize(samples);
  return [name, ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
};
const event = (path: string, query: Record<string, string> = {}) => anEvent({ path, resource: path, query, caller: null });
log();
log(table([
  ["in-process invocation", "p50", "p90", "p99", "max"],
  await timed("GET /openapi.json", () => openapi(event("/openapi.json"), aContext())),
  await timed("GET /docs (the page)", () => page(event("/docs"), aContext())),
  await timed("GET /docs?asset=swagger-ui-bundle.js", () => page(event("/docs", { asset: "swagger-ui-bundle.js" }), aContext())),
]));
