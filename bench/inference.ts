/**
 * Inference sections of `npm run bench` (called from bench/run.ts once the local stack is up):
 *
 *  4. Embeddings throughput of the offline provider: inputs per second through POST /v1/embeddings for
 *     calls of 1 and of 64 inputs, against the bare provider (`OfflineProvider.embed`) in this process.
 *  (Section 5, the model-call path against Portkey's gateway, is `npm run bench:gateway`: bench/gateway.ts.)
 */
import { OfflineProvider } from "../shared/inference/providers/offline.js";
import { ms, summarize, table, timed, type Summary } from "./stats.js";

export interface InferenceBenchContext {
  /** The local API (authorizer cache at its cloud setting) and an admin key of `workspace`. */
  url: string;
  apiKey: string;
  workspace: string;
  log: (line?: string) => void;
  section: (title: string) => void;
  /** Registers a cleanup that run.ts calls once, on success, error or a signal. */
  defer: (cleanup: () => Promise<void>) => void;
}

// -------------------------------------------------------------------------------------- 4. embeddings

/** Sentences of about 20 words, the size of a typical retrieval chunk's sentence. */
const SENTENCES = [
  "The quarterly report shows that revenue from the European market grew faster than expected despite the rising cost of shipping.",
  "Before you restart the database server, make sure every client connection has been drained and the replication lag is close to zero.",
  "Our team spent the afternoon reviewing customer feedback about the new onboarding flow and agreed to simplify the second step.",
  "The museum will extend its opening hours during the summer festival so that visitors can see the exhibition after work.",
  "If the invoice is not paid within thirty days, the account is suspended and a reminder is sent to the billing contact.",
  "She walked along the river at sunrise, listening to the birds and thinking about the long conversation she had with her father.",
  "The recipe calls for two cups of flour, a pinch of salt, three eggs and enough milk to make a smooth batter.",
  "Engineers traced the outage to an expired certificate on the load balancer, which rejected every request for almost forty minutes.",
  "Students who submit their projects early will receive written feedback from the instructor before the final presentation next week.",
  "The city council approved a plan to plant ten thousand trees along the main avenues over the next five years.",
  "When the train was delayed by snow, the passengers shared snacks and stories until the heating finally came back on.",
  "Please update the documentation so that new contributors know how to run the test suite locally without a cloud account.",
  "The doctor recommended a short walk after every meal, more water during the day and less coffee in the late afternoon.",
  "A small startup in Lyon built a tool that translates legal contracts into plain language for tenants and small business owners.",
  "The hiking trail climbs steeply through pine forest before it opens onto a ridge with views of three glacier lakes.",
  "Our support agents answer most questions within an hour, but complex billing disputes can take up to two business days.",
];

const sentenceBatch = (size: number, offset: number) => Array.from({ length: size }, (_, i) => SENTENCES[(offset + i) % SENTENCES.length]!);
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

interface ThroughputCell {
  path: string;
  perCall: number;
  calls: number;
  elapsedMs: number;
  perCallMs: Summary;
}

/** Calls `call` sequentially after `warmup` calls, until `maxCalls` or `budgetMs` is reached. */
async function throughput(path: string, perCall: number, call: (i: number) => Promise<void>, limits: { warmup: number; maxCalls: number; budgetMs: number }): Promise<ThroughputCell> {
  for (let i = 0; i < limits.warmup; i++) await call(i);
  const times: number[] = [];
  const start = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - start) / 1e6;
  while (times.length < limits.maxCalls && elapsed() < limits.budgetMs) times.push(await timed(() => call(times.length)));
  return { path, perCall, calls: times.length, elapsedMs: elapsed(), perCallMs: summarize(times) };
}

export async function embeddingsThroughput(ctx: InferenceBenchContext): Promise<void> {
  const { log } = ctx;
  ctx.section("4. Embeddings throughput, offline provider (route vs bare OfflineProvider.embed)");
  const headers = { authorization: `Bearer ${ctx.apiKey}`, "content-type": "application/json" };
  let responseBytes = 0;
  const route = (size: number) => async (i: number) => {
    const response = await fetch(`${ctx.url}/v1/embeddings`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "mistral-embed", input: sentenceBatch(size, i * size) }),
    });
    // The body is read but not parsed: parsing it would time the client, not the route.
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST /v1/embeddings answered ${response.status}: ${text.slice(0, 300)}`);
    if (size === 64) responseBytes = text.length;
  };
  const provider = new OfflineProvider();
  const bare = (size: number) => async (i: number) => {
    const out = await provider.embed({ model: "offline-hash-embed", inputs: sentenceBatch(size, i * size) });
    if (out.vectors.length !== size || out.vectors[0]!.length !== 1024) throw new Error("the offline provider returned the wrong shape");
  };

  // One checked call first: 64 vectors of 1024 floats, in input order.
  const check = await fetch(`${ctx.url}/v1/embeddings`, { method: "POST", headers, body: JSON.stringify({ model: "mistral-embed", input: sentenceBatch(64, 0) }) });
  const checked = (await check.json()) as { data?: { index: number; embedding: number[] }[]; usage?: { prompt_tokens: number } };
  if (check.status !== 200 || checked.data?.length !== 64 || checked.data.some((d, i) => d.index !== i || d.embedding.length !== 1024)) {
    throw new Error(`POST /v1/embeddings with 64 inputs answered ${check.status}: ${JSON.stringify(checked).slice(0, 300)}`);
  }

  // What the route does per input besides embedding: count its tokens with the model's tokenizer (v1 for
  // mistral-embed) to refuse over-long inputs and to report usage.
  const { countTokens } = await import("../shared/inference/tokenizer.js");
  const counted = (size: number) => async (i: number) => {
    for (const text of sentenceBatch(size, i * size)) if (countTokens("v1", text) <= 0) throw new Error("no tokens counted");
  };

  const cells = [
    await throughput("route POST /v1/embeddings", 1, route(1), { warmup: 30, maxCalls: 600, budgetMs: 6_000 }),
    await throughput("route POST /v1/embeddings", 64, route(64), { warmup: 5, maxCalls: 150, budgetMs: 10_000 }),
    await throughput("bare OfflineProvider.embed", 1, bare(1), { warmup: 200, maxCalls: 20_000, budgetMs: 2_000 }),
    await throughput("bare OfflineProvider.embed", 64, bare(64), { warmup: 20, maxCalls: 1_000, budgetMs: 3_000 }),
    await throughput("bare countTokens (v1), the route's input check", 64, counted(64), { warmup: 5, maxCalls: 200, budgetMs: 3_000 }),
  ];
  const rate = (c: ThroughputCell) => (c.calls * c.perCall) / (c.elapsedMs / 1000);
  const bareRate = (perCall: number) => rate(cells.find((c) => c.path.startsWith("bare") && c.perCall === perCall)!);
  log(
    `Sequential calls (one in flight) after warm-up; each cell stops at its call count or time budget. Inputs: ${SENTENCES.length} English sentences of ` +
      `${Math.min(...SENTENCES.map(words))}-${Math.max(...SENTENCES.map(words))} words (${checked.usage?.prompt_tokens ?? "?"} tokens for 64 inputs), 1024 dimensions, float JSON.`,
  );
  log(
    table([
      ["path", "inputs/call", "calls", "inputs/s", "p50/call", "p99/call", "route / bare"],
      ...cells.map((c) => [
        c.path,
        String(c.perCall),
        String(c.calls),
        rate(c).toFixed(0),
        ms(c.perCallMs.p50, 3),
        ms(c.perCallMs.p99, 3),
        c.path.startsWith("route") ? `${(bareRate(c.perCall) / rate(c)).toFixed(1)}x slower` : "",
      ]),
    ]),
  );
  log(`\nA 64-input response is ${(responseBytes / 1024).toFixed(0)} KB of JSON (${(responseBytes / 64 / 1024).toFixed(1)} KB per vector).`);
}
