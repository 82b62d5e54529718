/**
 * `npm run bench:datasets`: prints figures, asserts nothing (docs/benchmarks.md, "Observability datasets").
 *
 *  1. Dataset records one at a time: create (201), get, replace the payload (sequential).
 *  2. `GET /v1/observability/datasets/{id}/records?page_size=100` in a dataset of 1,000 records, the first page
 *     and the tenth (page-number paging reads the index up to the page).
 *  3. `POST /v1/observability/dataset-records/bulk-delete` of 500 records (existence read, then deletes).
 *  4. `POST …/records/from-spans` of 50 spans (50 point reads, one transaction).
 *  5. Live judging on the offline provider (the chat path, the structured output's check, the evaluation appended).
 *
 * One process (HTTP client, local server, handlers) plus DynamoDB Local; machine figures, not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../infra/local/stack.js";
import { spanStore } from "../shared/store/observability/spans.js";
import { aChatSpan } from "../test/support/dataset-items.js";
import { ms, summarize, table, timed, type Summary } from "./stats.js";

const N = Number(process.env.BENCH_DATASET_CALLS ?? 100);
const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Datasets benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-datasets-"));
// Judgements are appended to the analytical store's files: here, under the run's data directory.
process.env.TELEMETRY_DIR ??= join(dataDir, "telemetry");
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}
const conversation = (i: number) => ({ messages: [{ role: "user", content: `Question ${i}: what is ${i} + ${i}?` }, { role: "assistant", content: String(2 * i) }] });
const row = (what: string, s: Summary) => [what, String(s.n), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
const series = async (n: number, call: (i: number) => Promise<unknown>) => {
  const samples: number[] = [];
  for (let i = 0; i < n; i += 1) samples.push(await timed(() => call(i)));
  return summarize(samples);
};

try {
  const dataset = await api("POST", "/v1/observability/datasets", { name: "bench dataset", description: "bench" });
  const records = `/v1/observability/datasets/${dataset.id}/records`;
  for (let i = 0; i < 10; i += 1) await api("POST", records, { payload: conversation(i) });

  // 1. One record at a time.
  const ids: string[] = [];
  const create = await series(N, async (i) => ids.push((await api("POST", records, { payload: conversation(i) })).id));
  const get = await series(N, (i) => api("GET", `/v1/observability/dataset-records/${ids[i]}`));
  const put = await series(N, (i) => api("PUT", `/v1/observability/dataset-records/${ids[i]}/payload`, { payload: conversation(i + 1) }));
  log(`\n== Dataset records, one at a time (sequential, ${N} each) ==`);
  log(table([["call", "n", "p50", "p90", "p99", "max"], row("POST …/datasets/{id}/records", create), row("GET …/dataset-records/{id}", get), row("PUT …/dataset-records/{id}/payload", put)]));

  // 2. Lists in a dataset of 1,000.
  const big = await api("POST", "/v1/observability/datasets", { name: "bench thousand", description: "bench" });
  const bigIds: string[] = [];
  for (let i = 0; i < 100; i += 1) bigIds.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => api("POST", `/v1/observability/datasets/${big.id}/records`, { payload: conversation(i * 10 + j) })))).map((r) => r.id as string));
  const first = await series(20, () => api("GET", `/v1/observability/datasets/${big.id}/records?page_size=100`));
  const tenth = await series(20, () => api("GET", `/v1/observability/datasets/${big.id}/records?page=10&page_size=100`));
  log("\n== GET …/datasets/{id}/records?page_size=100 in a dataset of 1,000 records ==");
  log(table([["page", "n", "p50", "p90", "p99", "max"], row("page 1", first), row("page 10", tenth)]));

  // 3. Bulk delete of 500.
  const bulk = await timed(() => api("POST", "/v1/observability/dataset-records/bulk-delete", { dataset_record_ids: bigIds.slice(0, 500) }));
  log(`\n== POST …/dataset-records/bulk-delete of 500 records: ${ms(bulk)} ==`);

  // 4. Records from 50 spans.
  const caller = { workspace: stack.workspace, organization: stack.organization, principal: "bench" };
  const batches = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const spans = Array.from({ length: 50 }, () => aChatSpan(caller));
      await spanStore.put(spans, Math.floor(Date.now() / 1000) + 3600);
      return spans.map((s) => ({ trace_id: s.trace_id, span_id: s.span_id }));
    }),
  );
  const fromSpans = await series(batches.length, (i) => api("POST", `${records}/from-spans`, { spans: batches[i] }));
  log("\n== POST …/records/from-spans of 50 stored spans ==");
  log(table([["call", "n", "p50", "p90", "p99", "max"], row("from-spans ×50", fromSpans)]));

  // 5. Live judging, offline.
  const judge = (output: unknown) => ({ judge_definition: { name: "bench judge", description: "", model_name: "mistral-small-latest", output, instructions: "Judge the answer.", tools: [] } });
  const classes = { type: "CLASSIFICATION", options: [{ value: "right", description: "" }, { value: "wrong", description: "" }] };
  const scale = { type: "REGRESSION", min: 0, min_description: "bad", max: 10, max_description: "good" };
  const classification = await series(N, (i) => api("POST", `/v1/observability/dataset-records/${ids[i]}/live-judging`, judge(classes)));
  const regression = await series(N, (i) => api("POST", `/v1/observability/dataset-records/${ids[i]}/live-judging`, judge(scale)));
  log(`\n== POST …/dataset-records/{id}/live-judging on the offline provider (sequential, ${N} each) ==`);
  log(table([["judge", "n", "p50", "p90", "p99", "max"], row("CLASSIFICATION (2 options)", classification), row("REGRESSION [0, 10]", regression)]));
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
