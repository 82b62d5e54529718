/**
 * `npm run bench:resilience`: a routed model's calls against stub upstreams that fail in scripted ways (issue 27,
 * docs/routing.md, docs/benchmarks.md §22). Prints figures, asserts nothing.
 *
 * The local stack runs in this process with a catalog whose models each have two deployments (stubs A and B) and a
 * fallback model (stub C). Per scenario, A (and in one of them B) misbehaves: a burst of 429s, 500s throughout, no
 * answer at all (its provider's timeout is 1 s), a dead port, a first streamed byte after 3 s. Each scenario has
 * models of its own (fresh deployment ids, so no breaker carries over). For each: the success rate, p50/p99 latency,
 * the upstream requests per call, and when A was last reached (a breaker that opened stops calls to it).
 * Then the routing decision alone (pick, breakers, a call that answers at once) in a microbenchmark.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Balancer } from "../shared/domain/routing/balance.js";
import { Cooldowns } from "../shared/domain/routing/cooldown.js";
import { routeCall, type RoutedDeployment, type RoutedModel } from "../shared/domain/routing/route-call.js";
import { freePort } from "../infra/local/net.js";
import { startLocalStack } from "../infra/local/stack.js";
import { bookkeepingSettled } from "../shared/observability/after-answer.js";
import { ms, summarize, table } from "./stats.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const CONCURRENCY = 4;
const log = (line = "") => process.stdout.write(`${line}\n`);
const load = () => loadavg().map((l) => l.toFixed(1)).join(" / ");

type Mode = { kind: "ok" } | { kind: "429"; left: number } | { kind: "500" } | { kind: "hang" } | { kind: "slow-first-byte"; ms: number };

/** An OpenAI-compatible stub whose behaviour the scenario sets; it counts the requests it gets and when. */
class Stub {
  mode: Mode = { kind: "ok" };
  requests: number[] = [];
  private constructor(
    readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<Stub> {
    let stub: Stub | undefined;
    const server = createServer((request, response) => void stub!.answer(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    stub = new Stub(server, (server.address() as AddressInfo).port);
    return stub;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    this.requests.push(performance.now());
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { stream?: boolean };
    const mode = this.mode;
    if (mode.kind === "hang") return;
    if (mode.kind === "500") return void response.writeHead(500, { "content-type": "application/json" }).end('{"message":"internal error"}');
    if (mode.kind === "429" && mode.left > 0) {
      mode.left -= 1;
      return void response.writeHead(429, { "content-type": "application/json", "retry-after": "0" }).end('{"message":"rate limited"}');
    }
    if (body.stream) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.flushHeaders();
      if (mode.kind === "slow-first-byte") await sleep(mode.ms);
      if (response.destroyed) return;
      const frame = { id: "s", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "streamed" }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
      return void response.end(`data: ${JSON.stringify(frame)}\n\ndata: [DONE]\n\n`);
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ id: "s", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "fine" }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface Scenario {
  name: string;
  stream?: boolean;
  /** Sets the stubs up. */
  arrange(stubs: { a: Stub; b: Stub; c: Stub }): Promise<void> | void;
}

const SCENARIOS: Scenario[] = [
  { name: "healthy", arrange: () => undefined },
  { name: "A: a burst of 30 × 429 (Retry-After: 0)", arrange: ({ a }) => void (a.mode = { kind: "429", left: 30 }) },
  { name: "A: 500 throughout", arrange: ({ a }) => void (a.mode = { kind: "500" }) },
  { name: "A: no answer (1 s timeout)", arrange: ({ a }) => void (a.mode = { kind: "hang" }) },
  // Its model's first deployment is a provider on a port nothing listens on (the catalog below).
  { name: "A: dead port", arrange: () => undefined },
  { name: "A and B: 500 throughout (fallback C)", arrange: ({ a, b }) => void ((a.mode = { kind: "500" }), (b.mode = { kind: "500" })) },
  { name: "A: first streamed byte after 3 s (1 s timeout), streamed", stream: true, arrange: ({ a }) => void (a.mode = { kind: "slow-first-byte", ms: 3_000 }) },
];

/** A catalog with, per scenario, a model on deployments A and B and its fallback on C. */
function catalogFor(stubs: { a: Stub; b: Stub; c: Stub }, deadPort: number) {
  const providers = {
    "stub-a": { type: "openai-compatible", baseUrl: stubs.a.url, dialect: "mistral", timeoutMs: 1_000 },
    "stub-a-dead": { type: "openai-compatible", baseUrl: `http://127.0.0.1:${deadPort}`, dialect: "mistral", timeoutMs: 1_000 },
    "stub-b": { type: "openai-compatible", baseUrl: stubs.b.url, dialect: "mistral", timeoutMs: 1_000 },
    "stub-c": { type: "openai-compatible", baseUrl: stubs.c.url, dialect: "mistral", timeoutMs: 1_000 },
  };
  const card = { endpoints: ["chat"], max_context_length: 32_768, tokenizer: "tekken" };
  const models = SCENARIOS.flatMap((scenario, i) => [
    {
      id: `routed-${i}`,
      deployments: [
        { provider: scenario.name === "A: dead port" ? "stub-a-dead" : "stub-a", upstream: `a-${i}` },
        { provider: "stub-b", upstream: `b-${i}` },
      ],
      fallbacks: [`fallback-${i}`],
      ...card,
    },
    { id: `fallback-${i}`, provider: "stub-c", upstream: `c-${i}`, ...card },
  ]);
  return { providers, models };
}

async function runScenario(url: string, key: string, index: number, scenario: Scenario, stubs: { a: Stub; b: Stub; c: Stub }) {
  const before = { a: stubs.a.requests.length, b: stubs.b.requests.length, c: stubs.c.requests.length };
  const started = performance.now();
  const latencies: number[] = [];
  let ok = 0;
  let next = 0;
  const body = JSON.stringify({ model: `routed-${index}`, messages: [{ role: "user", content: "hello" }], ...(scenario.stream ? { stream: true } : {}) });
  const worker = async () => {
    while (next < CALLS) {
      next += 1;
      const t = performance.now();
      const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
      const text = await response.text();
      latencies.push(performance.now() - t);
      if (response.status === 200 && (!scenario.stream || text.includes("[DONE]"))) ok += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const aTimes = stubs.a.requests.slice(before.a);
  const upstream = stubs.a.requests.length - before.a + stubs.b.requests.length - before.b + stubs.c.requests.length - before.c;
  const s = summarize(latencies);
  return [
    scenario.name,
    `${((100 * ok) / CALLS).toFixed(1)}%`,
    ms(s.p50),
    ms(s.p99),
    (upstream / CALLS).toFixed(2),
    String(aTimes.length),
    aTimes.length ? ms((aTimes.at(-1) ?? started) - started) : "—",
  ];
}

/** The routing decision alone: a pick, the breakers, one call that answers at once (µs per call). */
async function decisionMicrobench(): Promise<string[][]> {
  type M = RoutedModel<RoutedDeployment>;
  const model: M = { name: "m", deployments: [{ id: "a", weight: 2 }, { id: "b", weight: 1 }], retry: { attempts: 2, baseMs: 250, maxMs: 5_000 }, fallbacks: ["f"] };
  const balancer = new Balancer(model.deployments);
  const deps = { modelNamed: async () => undefined, balancerOf: () => balancer, cooldowns: new Cooldowns(), sleep: async () => undefined, now: () => performance.now() };
  const call = async () => "answer";
  for (let i = 0; i < 20_000; i += 1) await routeCall(model, undefined, deps, call);
  const samples: number[] = [];
  for (let round = 0; round < 50; round += 1) {
    const t = performance.now();
    for (let i = 0; i < 2_000; i += 1) await routeCall(model, undefined, deps, call);
    samples.push(((performance.now() - t) * 1000) / 2_000);
  }
  const s = summarize(samples);
  return [["routing decision + an immediate call", "n (rounds of 2,000)", "p50 µs/call", "p99 µs/call"], ["routeCall", String(s.n), s.p50.toFixed(2), s.p99.toFixed(2)]];
}

async function main(): Promise<void> {
  log(`bench:resilience — ${new Date().toISOString()}, Node ${process.version}, load average ${load()}, ${CALLS} calls per scenario, ${CONCURRENCY} at once`);
  const stubs = { a: await Stub.start(), b: await Stub.start(), c: await Stub.start() };
  const deadPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-resilience-"));
  const catalogFile = join(dataDir, "catalog.json");
  writeFileSync(catalogFile, JSON.stringify(catalogFor(stubs, deadPort)));
  const stack = await startLocalStack({ port: 0, dataDir: join(dataDir, "data"), persist: false, authorizerCacheSeconds: 60, catalog: catalogFile });
  try {
    const { newTenant } = await import("../test/support/tenant.js");
    const tenant = await newTenant();
    const rows: string[][] = [["scenario", "success", "p50", "p99", "upstream requests / call", "requests to A", "last request to A after"]];
    for (const [index, scenario] of SCENARIOS.entries()) {
      stubs.a.mode = stubs.b.mode = stubs.c.mode = { kind: "ok" };
      await scenario.arrange(stubs);
      rows.push(await runScenario(stack.url, tenant.key, index, scenario, stubs));
    }
    log(`\nA model on deployments A and B (weights 1:1), fallback model on C; load average ${load()}`);
    log(table(rows));
    log("");
    log(table(await decisionMicrobench()));
  } finally {
    // The calls' usage and span writes run after their answers: let them land before the backends stop.
    await bookkeepingSettled();
    await stack.stop();
    await Promise.all(Object.values(stubs).map((s) => s.stop().catch(() => undefined)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
