/**
 * `npm run bench:observability`: prints figures, asserts nothing (docs/benchmarks.md, "Observability search and aggregation").
 *
 * Seeds 1,000,000 spans in a fresh telemetry directory, as the writers file them (JSON lines per workspace and
 * day, shared/blobs/telemetry.ts), over a week and three workspaces (60 / 30 / 10 %), with realistic spreads:
 * six models (skewed), statuses (~3 % Error), log-normal durations per model, tokens, a few tools and agents.
 * Then compacts the closed days to Parquet (compactTelemetry, as a local deployment would) and times, on
 * DuckDB through the engine's own services (parser → SQL builder → runner):
 *   1. a filtered search: one workspace, a week, `request_model = … AND status_code = 'Error' AND duration_ns > 2e9`, page 50;
 *   2. a p95 of duration_ns by request_model per hour over the week;
 * and, for comparison, the same search over today's still-JSON partition only.
 * BENCH_SPANS overrides the count; BENCH_RUNS the timed repetitions (default 20).
 */
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { partitionPrefix, type SpanRow } from "../shared/domain/observability/records.js";
import { aggregateTelemetry, searchTelemetry } from "../shared/services/observability/engine.js";
import { compactTelemetry } from "../shared/store/observability/analytics.js";
import { aSpanRow, messages } from "../test/support/telemetry-rows.js";
import { ms, summarize, table, timed } from "./stats.js";

const log = (line = "") => console.log(line);
const SPANS = Number(process.env.BENCH_SPANS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const DAY = 86_400_000;

log(`Observability benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

// A seeded generator (mulberry32): the same data on every run.
let seed = 42;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};
const pick = <T>(weighted: [T, number][]): T => {
  let r = random() * weighted.reduce((s, [, w]) => s + w, 0);
  for (const [value, weight] of weighted) if ((r -= weight) < 0) return value;
  return weighted[0]![0];
};
const normal = () => Math.sqrt(-2 * Math.log(random() || 1e-9)) * Math.cos(2 * Math.PI * random());
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");

const WORKSPACES: [string, number][] = [
  ["bench-ws-large", 60],
  ["bench-ws-medium", 30],
  ["bench-ws-small", 10],
];
// Model, weight, median latency (ms).
const MODELS: [string, number, number][] = [
  ["mistral-small-latest", 40, 400],
  ["mistral-medium-latest", 20, 900],
  ["mistral-large-latest", 15, 1800],
  ["codestral-latest", 10, 600],
  ["ministral-8b-latest", 10, 250],
  ["mistral-embed", 5, 80],
];
const TOOLS = ["", "", "", "", "web_search", "code_interpreter", "lookup_order"];
const now = Date.now();
const weekAgo = now - 7 * DAY;

function aSpan(): SpanRow {
  const workspace = pick(WORKSPACES);
  const [model, , medianMs] = pick(MODELS.map((m) => [m, m[1]] as [typeof m, number]));
  const start = new Date(weekAgo + random() * 7 * DAY);
  const durationMs = medianMs * Math.exp(0.6 * normal());
  const error = random() < 0.03;
  const tool = TOOLS[Math.floor(random() * TOOLS.length)]!;
  const embed = model === "mistral-embed";
  const input = Math.floor(50 + random() * 2000);
  const output = embed ? 0 : Math.floor(20 + random() * 800);
  // The test builder's span (every field as the writers fill it), with this run's spreads.
  return aSpanRow(workspace, {
    customer_id: "bench-org",
    organization_id: "bench-org",
    user_id: `user-${Math.floor(random() * 50)}`,
    trace_id: hex(32),
    span_id: hex(16),
    parent_span_id: random() < 0.3 ? "" : hex(16),
    start_time: start.toISOString(),
    end_time: new Date(start.getTime() + durationMs).toISOString(),
    duration_ns: Math.round(durationMs * 1e6),
    span_name: `${embed ? "embeddings" : "chat"} ${model}`,
    status_code: error ? "Error" : "Unset",
    status_message: error ? "upstream error" : "",
    error_type: error ? pick([["timeout", 2], ["rate_limited", 1], ["upstream_error", 1]]) : "",
    operation_name: embed ? "embeddings" : tool ? "execute_tool" : "chat",
    request_model: model,
    response_model: model,
    response_id: hex(16),
    output_type: embed ? "" : "text",
    conversation_id: random() < 0.4 ? `conv-${Math.floor(random() * 10_000)}` : "",
    agent_id: random() < 0.2 ? `ag-${Math.floor(random() * 20)}` : "",
    workflow_name: random() < 0.1 ? "support-triage" : "",
    tool_name: tool,
    tool_type: tool ? "function" : "",
    input_messages: embed ? "" : messages("user", `question ${Math.floor(random() * 1e6)}`),
    output_messages: embed ? "" : messages("assistant", "answer"),
    request_max_tokens: 1024,
    request_encoding_formats: embed ? ["float"] : [],
    response_finish_reasons: embed ? [] : [error ? "error" : "stop"],
    usage_input_tokens: input,
    usage_output_tokens: output,
    usage_cache_read_input_tokens: random() < 0.2 ? Math.floor(input / 2) : 0,
    resource_attributes: { "service.name": "platform-api", "deployment.environment.name": "bench" },
  });
}

const dir = await mkdtemp(join(tmpdir(), "bench-telemetry-"));
process.env.TELEMETRY_DIR = dir;
try {
  // ------------------------------------------------------------------------------------------- seed
  log(`\n## Seed: ${SPANS.toLocaleString("en")} spans, 3 workspaces, 7 days`);
  const seedStart = performance.now();
  const streams = new Map<string, ReturnType<typeof createWriteStream>>();
  const hourNow = new Date().toISOString().slice(0, 13).replace(/[-T:]/g, "");
  let bytes = 0;
  for (let i = 0; i < SPANS; i++) {
    const span = aSpan();
    const prefix = partitionPrefix("spans", span.workspace_id, span.start_time);
    let stream = streams.get(prefix);
    if (!stream) {
      await mkdir(join(dir, prefix), { recursive: true });
      // Past days' files are named by an hour long gone (as a writer of that day would have), today's by this hour.
      const hour = span.start_time.slice(0, 10) === new Date().toISOString().slice(0, 10) ? hourNow : span.start_time.slice(0, 10).replace(/-/g, "") + "23";
      stream = createWriteStream(join(dir, prefix, `${hour}-${process.pid}.jsonl`));
      streams.set(prefix, stream);
    }
    const line = JSON.stringify(span) + "\n";
    bytes += line.length;
    if (!stream.write(line)) await once(stream, "drain");
  }
  await Promise.all([...streams.values()].map((s) => new Promise((resolve) => s.end(resolve))));
  const wrote = performance.now() - seedStart;
  log(`JSON lines written: ${(bytes / 2 ** 20).toFixed(0)} MiB in ${streams.size} partition files, ${(wrote / 1000).toFixed(1)} s (${Math.round(SPANS / (wrote / 1000)).toLocaleString("en")} spans/s)`);
  const compactStart = performance.now();
  const compacted = await compactTelemetry(dir);
  log(`Compacted ${compacted} closed-day files to Parquet (zstd) in ${((performance.now() - compactStart) / 1000).toFixed(1)} s; today's partition stays JSON lines`);

  // ------------------------------------------------------------------------------------------- queries
  const ws = "bench-ws-large";
  const week = { from: new Date(weekAgo).toISOString(), to: new Date(now + 60_000).toISOString() };
  const today = { from: new Date(now - (now % DAY)).toISOString(), to: week.to };
  const search = (window: typeof week) => () =>
    searchTelemetry(ws, "spans", { ...window, page_size: 50, search_expression: "request_model = 'mistral-large-latest' AND status_code = 'Error' AND duration_ns > 2000000000" });
  const aggregate = () =>
    aggregateTelemetry(ws, "spans", week, { metric: { measure: "duration_ns", aggregation: "p95" }, dimensions: ["request_model"], time_dimension: { granularity: "hour" }, limit: 10_000 });

  const first = await search(week)();
  const agg = await aggregate();
  log(`\nFiltered search finds ${first.results.length} spans on its first page (cursor: ${first.cursor ? "yes" : "no"}); the aggregation answers ${agg.data.length} rows (model × hour)`);

  const measure = async (fn: () => Promise<unknown>) => {
    await fn(); // warm: the first query loads DuckDB and reads the file footers
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await timed(fn));
    return summarize(samples);
  };
  const rows: string[][] = [["query", "rows scanned", "p50", "p99", "max"]];
  const add = (name: string, scanned: string, s: Awaited<ReturnType<typeof measure>>) => rows.push([name, scanned, ms(s.p50, 0), ms(s.p99, 0), ms(s.max, 0)]);
  const share = (days: number) => `~${Math.round((SPANS * 0.6 * days) / 7 / 1000)}k`;
  add("filtered search, 1 workspace, 7 days, page 50", share(7), await measure(search(week)));
  add("p95(duration_ns) by request_model per hour, 7 days", share(7), await measure(aggregate));
  add("filtered search, today only (JSON lines, not compacted)", share(1), await measure(search(today)));
  log(`\n## DuckDB, ${RUNS} runs each after one warm-up\n`);
  log(table(rows));
} finally {
  await rm(dir, { recursive: true, force: true });
}
