/**
 * `npm run bench:otlp`: prints figures, asserts nothing (docs/benchmarks.md, "OTLP ingest").
 *
 *  1. OTLP ingest throughput on the local stack: POST /telemetry/v1/traces with batches of 100 and 512 GenAI
 *     spans, OTLP/JSON and protobuf, one request at a time and four at a time; spans stored per second (both
 *     stores: the telemetry table in DynamoDB Local and the JSON-lines files).
 *  2. The span writer's overhead on a chat call: POST /v1/chat/completions (offline provider) p50/p90 with the
 *     platform's spans on and off (TELEMETRY_SPANS=off), interleaved rounds.
 *
 * One process plus DynamoDB Local (java) and s3rver on this machine: figures compare code paths; they are not
 * cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../infra/local/stack.js";
import { encodeProtobuf } from "../shared/http/otlp.js";
import { anExportRequest, anOtlpSpan, hex } from "../test/support/otlp.js";
import { ms, summarize, table, timed } from "./stats.js";

const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`OTLP ingest benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const REQUESTS = Number(process.env.BENCH_OTLP_REQUESTS ?? 20);
const CHATS = Number(process.env.BENCH_OTLP_CHATS ?? 100);
const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-otlp-"));
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });
const auth = { authorization: `Bearer ${stack.apiKey}` };

try {
  log("\n## 1. OTLP ingest throughput (spans stored per second)");
  const rows: string[][] = [["encoding", "spans/request", "in flight", "requests", "body", "p50 request", "spans/s"]];
  for (const size of [100, 512]) {
    for (const encoding of ["json", "protobuf"] as const) {
      const body = () => {
        const trace = hex(16);
        const request = anExportRequest(Array.from({ length: size }, (_, i) => anOtlpSpan(trace, i)));
        return encoding === "json" ? JSON.stringify(request) : Buffer.from(encodeProtobuf("traces", request));
      };
      const post = async () => {
        const response = await fetch(`${stack.url}/telemetry/v1/traces`, { method: "POST", headers: { ...auth, "content-type": encoding === "json" ? "application/json" : "application/x-protobuf" }, body: body() });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`ingest answered ${response.status}`);
      };
      await post(); // warm-up
      for (const inFlight of [1, 4]) {
        const samples: number[] = [];
        const started = performance.now();
        for (let i = 0; i < REQUESTS; i += inFlight) {
          await Promise.all(Array.from({ length: Math.min(inFlight, REQUESTS - i) }, async () => samples.push(await timed(post))));
        }
        const seconds = (performance.now() - started) / 1000;
        const bytes = encoding === "json" ? Buffer.byteLength(body() as string) : (body() as Buffer).length;
        rows.push([encoding, String(size), String(inFlight), String(REQUESTS), `${(bytes / 1024).toFixed(0)} KB`, ms(summarize(samples).p50, 1), ((REQUESTS * size) / seconds).toFixed(0)]);
      }
    }
  }
  log(table(rows));

  log("\n## 2. The span writer's overhead on a chat call (offline provider)");
  const chat = () =>
    timed(async () => {
      const response = await fetch(`${stack.url}/v1/chat/completions`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ model: "mistral-small-latest", messages: [{ role: "user", content: "How long is a span?" }] }) });
      await response.arrayBuffer();
    });
  for (let i = 0; i < 10; i += 1) await chat();
  const on: number[] = [];
  const off: number[] = [];
  for (let round = 0; round < CHATS / 10; round += 1) {
    process.env.TELEMETRY_SPANS = "on";
    for (let i = 0; i < 5; i += 1) on.push(await chat());
    process.env.TELEMETRY_SPANS = "off";
    for (let i = 0; i < 5; i += 1) off.push(await chat());
  }
  delete process.env.TELEMETRY_SPANS;
  const [a, b] = [summarize(on), summarize(off)];
  log(
    table([
      ["spans", "calls", "p50", "p90"],
      ["on", String(on.length), ms(a.p50), ms(a.p90)],
      ["off", String(off.length), ms(b.p50), ms(b.p90)],
    ]),
  );
  log(`Overhead at p50: ${ms(a.p50 - b.p50)} (${(((a.p50 - b.p50) / b.p50) * 100).toFixed(1)} %)`);
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
