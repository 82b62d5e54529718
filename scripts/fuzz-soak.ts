/**
 * The fuzz ring's soak (`npm run fuzz -- --duration 3600 --concurrency 16`, docs/testing.md): the ring's
 * multipart, OTLP and model-call generators (test/support/fuzz-ring.ts requestsFor) sent at full concurrency
 * to a running `npm start` for a while, watching the server: did it restart (its pid changed, or it stopped
 * answering), did anything answer 5xx or take longer than its budget, and where did its memory go (VmRSS of
 * the server process at the start, its peak, and after a settling pause; and, for the limit, its RSS after a full
 * collection at the start and at the end: scripts/soak/heap.ts). Any of those fails the run (exit 1).
 */
import { existsSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import fc from "fast-check";
import { routes, type RouteRow } from "../functions/routes.js";
import { STACK_FILE } from "../infra/local/lock.js";
import { routeKey } from "../shared/http/policy.js";
import { specOf } from "../test/support/envelopes.js";
import { requestsFor, type FuzzRequest, type RingTarget } from "../test/support/fuzz-ring.js";
import { newOwner } from "../test/support/route-fixtures.js";
import type { TestTenant } from "../test/support/tenant.js";
import { memoryAfterFullGc, type CollectedMemory } from "./soak/heap.js";

export interface SoakOptions {
  url: string;
  key: string;
  durationSeconds: number;
  concurrency: number;
  seed: number;
  /** The longest one request may take. */
  budgetMs: number;
  /** How long to wait after the load before reading the memory "after". */
  settleSeconds: number;
}

/** The rows the soak drives: every multipart and OTLP row (by their body parsers), and the model calls. */
async function soakRows(): Promise<{ row: RouteRow; kind: string }[]> {
  const out: { row: RouteRow; kind: string }[] = [];
  for (const row of routes) {
    const spec = await specOf(row);
    if (spec.parser?.form) out.push({ row, kind: "multipart" });
    else if (spec.parser?.otlp) out.push({ row, kind: "otlp" });
    else if (row.method === "POST" && row.grants.models === "invoke" && spec.body && !row.path.includes("{")) out.push({ row, kind: "model call" });
  }
  return out;
}

const MB = 1024 * 1024;

/** VmRSS of a process in bytes, undefined when it is gone. */
function rssOf(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The process listening on the URL's port on this machine (from /proc/net/tcp{,6} and the processes' sockets). */
function pidListeningOn(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is ip:PORT in hex; state 0A is LISTEN; column 9 is the socket's inode.
      if (cols[3] === "0A" && parseInt(cols[1]?.split(":")[1] ?? "", 16) === port) inodes.add(cols[9]!);
    }
  }
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (inodes.has(/^socket:\[(\d+)]$/.exec(link)?.[1] ?? "")) return Number(pid);
      }
    } catch {
      // a process that ended or is not ours to read
    }
  }
  return undefined;
}

/** The data dir's local-stack.json when it describes the stack serving `url`. */
function stackServing(url: string): { pid?: number; env?: Record<string, string> } | undefined {
  const file = join(resolve(process.env.PLATFORM_DATA_DIR ?? ".data"), STACK_FILE);
  if (!existsSync(file)) return undefined;
  const stack = JSON.parse(readFileSync(file, "utf8")) as { url?: string; pid?: number; env?: Record<string, string> };
  return stack.url === url ? stack : undefined;
}

/** The server's pid: the stack file's when it runs on the data dir, else whoever listens on the URL's port. */
export function serverPid(url: string): number | undefined {
  const pid = stackServing(url)?.pid;
  if (pid) return pid;
  const parsed = new URL(url);
  return pidListeningOn(Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80)));
}

interface Tally {
  sent: number;
  byStatus: Map<number, number>;
  fiveHundreds: string[];
  overBudget: string[];
  failures: string[];
}

const emptyTally = (): Tally => ({ sent: 0, byStatus: new Map(), fiveHundreds: [], overBudget: [], failures: [] });

async function sendOne(options: SoakOptions, row: RouteRow, request: FuzzRequest, tally: Tally): Promise<void> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.key}` };
  if (request.contentType) headers["content-type"] = request.contentType;
  const search = request.query.length ? `?${new URLSearchParams(request.query).toString()}` : "";
  const started = performance.now();
  const what = `${routeKey(row)} ${request.variant}`;
  try {
    const response = await fetch(`${options.url}${request.path}${search}`, { method: row.method, headers, body: request.body as BodyInit | undefined, signal: AbortSignal.timeout(options.budgetMs * 3) });
    await response.arrayBuffer();
    const ms = performance.now() - started;
    tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
    if (response.status >= 500) tally.fiveHundreds.push(`${response.status} ${what}`);
    if (ms > options.budgetMs) tally.overBudget.push(`${Math.round(ms)} ms ${what}`);
  } catch (error) {
    tally.failures.push(`${what}: ${(error as Error).message}`);
  } finally {
    tally.sent += 1;
  }
}

/** How long `call` took to answer, in ms (an error or a timeout counts as answered when it came). */
async function timed(call: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  try {
    await (await call()).arrayBuffer();
  } catch {
    // slow or refused alike: the time is what is measured
  }
  return performance.now() - started;
}


/** Runs the soak and prints its report; answers whether it passed. */
export async function soak(options: SoakOptions): Promise<boolean> {
  const pid = serverPid(options.url);
  if (!pid) throw new Error(`No process found serving ${options.url} on this machine (start it with npm start)`);
  const rows = await soakRows();
  const tenant = { key: options.key, caller: { workspace: "", organization: "" } } as unknown as TestTenant;
  const target: RingTarget = { api: { url: options.url }, owner: newOwner({ url: options.url }, tenant), hints: { model: fc.constantFrom("mistral-small-latest", "mistral-embed", "codestral-latest", "mistral-large-latest") } };
  const arbitraries = await Promise.all(rows.map(async ({ row }) => requestsFor(row, target)));
  console.log(`soak: ${rows.length} routes (${rows.map((r) => `${routeKey(r.row)} [${r.kind}]`).join(", ")})`);
  console.log(`soak: ${options.concurrency} at once for ${options.durationSeconds} s against ${options.url} (server pid ${pid}), seed ${options.seed}, budget ${options.budgetMs} ms per request`);

  // The local server imports a route's handler (and its SDK clients, schemas, tokenizer tables) on the route's
  // first request: that is code being loaded once, not load left behind. One request per route first, then the
  // start is read, so "after minus start" is what the load itself left.
  const rssCold = rssOf(pid) ?? 0;
  const warmUp = emptyTally();
  for (const [at, { row }] of rows.entries()) {
    for (const request of fc.sample(arbitraries[at]!, { seed: options.seed, numRuns: 1 })) await sendOne({ ...options, budgetMs: options.budgetMs * 10 }, row, request, warmUp);
  }
  await new Promise((r) => setTimeout(r, options.settleSeconds * 1000));
  const rssStart = rssOf(pid) ?? 0;
  const collectedStart = await memoryAfterFullGc(pid);
  let rssPeak = rssStart;
  const restarts: string[] = [];
  const tally = emptyTally();
  tally.fiveHundreds.push(...warmUp.fiveHundreds);
  tally.failures.push(...warmUp.failures);
  const deadline = Date.now() + options.durationSeconds * 1000;

  // The watch: the same pid alive, its memory, and an answer to a cheap request within the budget. Beside it, for
  // telling a stall apart: this process's own event-loop delay (a soak client busy generating would look like a
  // slow server), and DynamoDB Local answered directly (every route waits on it).
  const clientDelay = monitorEventLoopDelay({ resolution: 20 });
  clientDelay.enable();
  const stalls: string[] = [];
  const dynamodb = stackServing(options.url)?.env?.AWS_ENDPOINT_URL_DYNAMODB;
  let watching = true;
  let serverProbeMs = 0;
  const sideProbes = (async () => {
    while (watching) {
      const sent = Date.now();
      const dynamoMs = dynamodb ? await timed(() => fetch(dynamodb, { method: "POST", headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "DynamoDB_20120810.ListTables", authorization: "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0" }, body: "{}", signal: AbortSignal.timeout(60_000) })) : 0;
      const loop = clientDelay.max / 1e6;
      clientDelay.reset();
      if (serverProbeMs > 2000 || dynamoMs > 2000 || loop > 1000) {
        const line = `${new Date(sent).toISOString()}: server ${Math.round(serverProbeMs)} ms (its last probe), DynamoDB Local ${Math.round(dynamoMs)} ms, soak client's event loop held up to ${Math.round(loop)} ms`;
        stalls.push(line);
        console.log(`soak: slow: ${line}`);
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
  })();
  const watch = (async () => {
    let lastProbe = 0;
    while (watching) {
      const current = serverPid(options.url);
      if (current !== pid) {
        restarts.push(`${new Date().toISOString()}: the server's pid is ${current ?? "gone"}, was ${pid}`);
        break;
      }
      rssPeak = Math.max(rssPeak, rssOf(pid) ?? 0);
      if (Date.now() - lastProbe > 5000) {
        lastProbe = Date.now();
        const probed = performance.now();
        try {
          const probe = await fetch(`${options.url}/v1/models`, { headers: { authorization: `Bearer ${options.key}` }, signal: AbortSignal.timeout(Math.max(10_000, options.budgetMs)) });
          await probe.arrayBuffer();
        } catch (error) {
          restarts.push(`${new Date().toISOString()}: the server stopped answering (${(error as Error).message})`);
        }
        serverProbeMs = performance.now() - probed;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();

  let round = 0;
  const worker = async (index: number) => {
    while (Date.now() < deadline && restarts.length === 0) {
      // A batch per row per round, from a seed of its own: the run is replayable from the printed seed.
      round += 1;
      const at = (index + round) % rows.length;
      const batch = fc.sample(arbitraries[at]!, { seed: options.seed + round * 7919 + index, numRuns: 5 });
      for (const request of batch) {
        if (Date.now() >= deadline) break;
        await sendOne(options, rows[at]!.row, request, tally);
      }
    }
  };
  const progress = setInterval(() => console.log(`soak: ${tally.sent} sent, ${tally.fiveHundreds.length} 5xx, ${tally.overBudget.length} over budget, RSS ${Math.round((rssOf(pid) ?? 0) / MB)} MB`), 30_000);
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => worker(i)));
  clearInterval(progress);
  await new Promise((r) => setTimeout(r, options.settleSeconds * 1000));
  watching = false;
  await Promise.all([watch, sideProbes]);
  clientDelay.disable();
  const rssAfter = rssOf(pid);
  const collectedAfter = rssAfter === undefined ? undefined : await memoryAfterFullGc(pid);

  const statuses = [...tally.byStatus].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(", ");
  // What the load left behind: the memory after a full collection, against the same reading at the start.
  const grewBy = collectedAfter === undefined ? undefined : collectedAfter.rss - collectedStart.rss;
  const problems = [
    ...restarts.map((r) => `restart: ${r}`),
    ...tally.fiveHundreds.slice(0, 20).map((f) => `5xx: ${f}`),
    ...tally.overBudget.slice(0, 20).map((f) => `over budget: ${f}`),
    ...tally.failures.slice(0, 20).map((f) => `no answer: ${f}`),
    ...(grewBy === undefined ? ["memory: the server process is gone"] : grewBy > 100 * MB ? [`memory: RSS after a full collection is ${Math.round(grewBy / MB)} MB above the start's (limit 100 MB)`] : []),
  ];
  console.log(`\nsoak report (seed ${options.seed})`);
  console.log(`  requests: ${tally.sent} (${statuses})`);
  console.log(`  restarts: ${restarts.length}`);
  console.log(`  5xx: ${tally.fiveHundreds.length}`);
  console.log(`  over ${options.budgetMs} ms: ${tally.overBudget.length}`);
  console.log(`  no answer: ${tally.failures.length}`);
  console.log(`  slow probes (over 2 s, or the soak client held over 1 s): ${stalls.length}`);
  for (const stall of stalls.slice(0, 20)) console.log(`    ${stall}`);
  console.log(`  server RSS: ${Math.round(rssCold / MB)} MB cold, start ${Math.round(rssStart / MB)} MB (after one request per route), peak ${Math.round(rssPeak / MB)} MB, after ${rssAfter === undefined ? "gone" : `${Math.round(rssAfter / MB)} MB`} (${options.settleSeconds} s after the load)`);
  const collected = (m: CollectedMemory) =>
    `RSS ${Math.round(m.rss / MB)} MB, heap ${Math.round(m.heapUsed / MB)} MB, external ${Math.round(m.external / MB)} MB (ArrayBuffers ${Math.round(m.arrayBuffers / MB)} MB)`;
  console.log(`  after a full collection: start ${collected(collectedStart)}; after ${collectedAfter ? collected(collectedAfter) : "gone"}`);
  for (const problem of problems) console.log(`  FAIL ${problem}`);
  console.log(problems.length ? "soak: FAILED" : "soak: passed");
  return problems.length === 0;
}
