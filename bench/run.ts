/**
 * `npm run bench`: prints figures, asserts nothing.
 *
 *  1. Per-function bundle sizes (the esbuild pass CDK ships, written to dist/).
 *  2. GET /v1/files/{id} through the local server (authorizer cache at the cloud setting, and off)
 *     against a bare DynamoDB GetItem for the same key on the same DynamoDB Local.
 *  3. GET /v1/files for a workspace of 1,000 and one of 10,000 files: include_total=true (the SDK's
 *     default), include_total=false, and page 5.
 *  4. Embeddings throughput of the offline provider through POST /v1/embeddings (1 and 64 inputs a
 *     call) against the bare provider (bench/inference.ts).
 *  5. Time to the first SSE frame of a streamed FIM call through the route to an OpenAI-compatible
 *     upstream with a known first-frame delay, against the same call straight to that upstream.
 *
 * Everything runs in this one process (HTTP client, local server, handlers) plus DynamoDB Local (java)
 * and s3rver; the figures compare code paths on one machine, they are not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { buildHandlers } from "../infra/build.js";
import { startLocalStack, ROOT_DIR, type LocalStack } from "../infra/local/stack.js";
import { AUTHORIZER_CACHE_SECONDS } from "../shared/http/gateway.js";
import { batchThroughput } from "./batch.js";
import { embeddingsThroughput, type InferenceBenchContext } from "./inference.js";
import { seedFiles } from "./seed.js";
import { kb, median, ms, summarize, table, timed, type Summary } from "./stats.js";

const GET_WARMUP = 50;
const GET_RUNS = 300;
const LIST_WARMUP = 5;
const LIST_RUNS = 60;
/** A list cell stops early once it has spent this long, so the whole run stays within a few minutes. */
const LIST_CELL_BUDGET_MS = 25_000;
const SIZES = [1_000, 10_000];

const started = Date.now();
const log = (line = "") => console.log(line);
const section = (title: string) => log(`\n== ${title} ${"=".repeat(Math.max(0, 78 - title.length))}`);

// ---------------------------------------------------------------------------------------------- header
const cpuList = cpus();
log(`Benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

// ---------------------------------------------------------------------------------------- 1. bundles
section("1. Per-function bundle size (esbuild, minified ESM, @aws-sdk/* external)");
{
  const t0 = Date.now();
  const bundles = (await buildHandlers()).sort((a, b) => b.bytes - a.bytes);
  const sizes = bundles.map((b) => b.bytes);
  log(`${bundles.length} bundles built into dist/ in ${Date.now() - t0} ms`);
  log(
    table([
      ["", "min", "median", "max", "total"],
      ["size", kb(Math.min(...sizes)), kb(median(sizes)), kb(Math.max(...sizes)), kb(sizes.reduce((s, x) => s + x, 0))],
    ]),
  );
  log("\nLargest:");
  log(table([["handler", "size"], ...bundles.slice(0, 4).map((b) => [b.handler, kb(b.bytes)])]));
}

// ------------------------------------------------------------------------------------ local stack up
const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-"));
let stack: LocalStack | undefined;
const stopApis: (() => Promise<void>)[] = [];
/** Stops the servers and backends and removes the data dir, once, whoever asks first (finally or a signal). */
let cleaning: Promise<void> | undefined;
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const stop of stopApis) await stop().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  })());
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`\n${signal}: stopping the local stack`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  const t0 = Date.now();
  stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: AUTHORIZER_CACHE_SECONDS });
  // Imported only now: the modules below build their AWS clients from the environment the stack set.
  const { startApiServer } = await import("../infra/local/server.js");
  const tenants = await import("../shared/services/tenancy/tenants.js");
  const uncached = await startApiServer({ port: 0, authorizerCacheSeconds: 0, rootDir: ROOT_DIR });
  stopApis.push(uncached.stop);
  log(`\nLocal stack (DynamoDB Local in memory + s3rver + API server) up in ${Date.now() - t0} ms`);

  const auth = { authorization: `Bearer ${stack.apiKey}` };
  const call = async (base: string, path: string, headers: Record<string, string>) => {
    const response = await fetch(`${base}${path}`, { headers });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${body.slice(0, 300)}`);
    return body;
  };

  // ------------------------------------------------------------------------------ 2. GET one file
  section("2. GET /v1/files/{id} vs a bare GetItem on the same key");
  const form = new FormData();
  form.append("file", new Blob(['{"custom_id":"0","body":{}}\n']), "bench.jsonl");
  form.append("purpose", "batch");
  const uploaded = await fetch(`${stack.url}/v1/files`, { method: "POST", headers: auth, body: form });
  if (uploaded.status !== 200) throw new Error(`upload answered ${uploaded.status}: ${await uploaded.text()}`);
  const fileId = ((await uploaded.json()) as { id: string }).id;

  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: stack.env.AWS_ENDPOINT_URL_DYNAMODB, region: stack.env.AWS_REGION }),
  );
  const getItem = new GetCommand({ TableName: stack.env.TABLE_FILES, Key: { workspace: stack.workspace, sk: `FILE#${fileId}` } });
  const bare = async () => {
    const out = await documents.send(getItem);
    if (!out.Item) throw new Error("GetItem found no item");
  };
  const path = `/v1/files/${fileId}`;
  const routeCached = () => call(stack!.url, path, auth);
  const routeUncached = () => call(uncached.url, path, auth);

  for (let i = 0; i < GET_WARMUP; i++) {
    await bare();
    await routeCached();
    await routeUncached();
  }
  // Interleaved, one of each per round, so drift (GC, JIT, the JVM) falls on all three alike.
  const samples = { bare: [] as number[], cached: [] as number[], uncached: [] as number[] };
  for (let i = 0; i < GET_RUNS; i++) {
    samples.bare.push(await timed(bare));
    samples.cached.push(await timed(routeCached));
    samples.uncached.push(await timed(routeUncached));
  }
  const s = { bare: summarize(samples.bare), cached: summarize(samples.cached), uncached: summarize(samples.uncached) };
  const row = (name: string, x: Summary) => [name, String(x.n), ms(x.p50), ms(x.p90), ms(x.p99), ms(x.max), `${(x.p50 / s.bare.p50).toFixed(1)}x`];
  log(`${GET_RUNS} sequential requests each after ${GET_WARMUP} warm-up rounds, interleaved; one HTTP keep-alive client (fetch)`);
  log(
    table([
      ["path", "n", "p50", "p90", "p99", "max", "p50 / GetItem p50"],
      row("GetCommand (document client -> DynamoDB Local)", s.bare),
      row(`route, authorizer cache ${AUTHORIZER_CACHE_SECONDS} s (cloud setting)`, s.cached),
      row("route, authorizer cache off (authorizer every call)", s.uncached),
    ]),
  );
  log(`\nRoute overhead over GetItem at p50: ${ms(s.cached.p50 - s.bare.p50)} (cache on), ${ms(s.uncached.p50 - s.bare.p50)} (cache off)`);
  documents.destroy();

  // ------------------------------------------------------------------------------ 3. list latency
  section("3. GET /v1/files?page_size=100 by workspace size");
  const org = stack.organization;
  const workspaces: { size: number; key: string }[] = [];
  for (const size of SIZES) {
    const ws = await tenants.createWorkspace(org, `bench ${size}`);
    const { key, record } = await tenants.createApiKey({ organization: org, workspace: ws.id, name: `bench ${size}`, admin: true, principal: { id: `bench-${size}`, type: "user" } });
    const t = Date.now();
    await seedFiles({ organization: org, workspace: ws.id, owner: record.principal }, size);
    const seconds = (Date.now() - t) / 1000;
    log(`seeded ${size.toLocaleString("en")} file records in ${seconds.toFixed(1)} s (BatchWrite of 25, 4 in flight)`);
    workspaces.push({ size, key });
  }

  const variants = [
    { name: "page 0, include_total=true (SDK default)", query: "page=0&page_size=100&include_total=true", expect: 100 },
    { name: "page 0, include_total=false", query: "page=0&page_size=100&include_total=false", expect: 100 },
    { name: "page 5, include_total=true", query: "page=5&page_size=100&include_total=true", expect: 100 },
    { name: "page 5, include_total=false", query: "page=5&page_size=100&include_total=false", expect: 100 },
  ];
  const listRows: string[][] = [["query", "files", "n", "p50", "p90", "p99", "max"]];
  for (const variant of variants) {
    for (const ws of workspaces) {
      const headers = { authorization: `Bearer ${ws.key}` };
      const listPath = `/v1/files?${variant.query}`;
      const check = JSON.parse(await call(stack.url, listPath, headers)) as { data: unknown[]; total: number | null };
      const wantTotal = variant.query.includes("include_total=true") ? ws.size : null;
      if (check.data.length !== variant.expect || check.total !== wantTotal) {
        throw new Error(`${listPath} on ${ws.size} files gave ${check.data.length} items, total ${check.total}`);
      }
      for (let i = 0; i < LIST_WARMUP; i++) await call(stack.url, listPath, headers);
      const times: number[] = [];
      const cellStart = Date.now();
      while (times.length < LIST_RUNS && Date.now() - cellStart < LIST_CELL_BUDGET_MS) {
        times.push(await timed(() => call(stack!.url, listPath, headers)));
      }
      const x = summarize(times);
      listRows.push([variant.name, ws.size.toLocaleString("en"), String(x.n), ms(x.p50, 1), ms(x.p90, 1), ms(x.p99, 1), ms(x.max, 1)]);
    }
  }
  log(`\nUp to ${LIST_RUNS} sequential requests per cell after ${LIST_WARMUP} warm-up (a cell stops after ${LIST_CELL_BUDGET_MS / 1000} s); authorizer cache ${AUTHORIZER_CACHE_SECONDS} s.`);
  log("With n < 100, p99 is the slowest sample or next to it.");
  log(table(listRows));

  // ------------------------------------------------------------------ 4. embeddings (5 is npm run bench:gateway)
  const inference: InferenceBenchContext = {
    url: stack.url,
    apiKey: stack.apiKey,
    workspace: stack.workspace,
    log,
    section,
    defer: (stop) => stopApis.push(stop),
  };
  await embeddingsThroughput(inference);
  await batchThroughput(inference);
} finally {
  await cleanup();
}
log(`\nTotal benchmark time ${((Date.now() - started) / 1000).toFixed(1)} s`);
