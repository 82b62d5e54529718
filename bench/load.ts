/**
 * `npm run load`: a fixed-duration mixed workload against `npm start`, driven by autocannon. One
 * autocannon instance per route family runs at the same time as the others, so each family gets its own
 * throughput and latency figures while they all compete for the same server:
 *
 *   reads        GET /v1/files (page of 20), GET /v1/files/{id}, GET /v1/agents/{id}, GET /v2/prompts
 *   writes       POST /v1/agents, PATCH /v1/agents/{id} (new versions), POST /v2/prompts
 *   uploads      POST /v1/files, a 1–2 KB JSONL file as multipart
 *   model calls  POST /v1/chat/completions and POST /v1/embeddings on the offline provider
 *
 * It starts `npm start` itself (a child process, temporary data dir, random key) unless LOAD_URL names a
 * running server (loopback only) with its key in PLATFORM_API_KEY. LOAD_DURATION (seconds, default 20)
 * and LOAD_CONNECTIONS (per family, default 2; reads get twice that) size the run. Prints req/s, p50/p90/p99
 * per family and the error count; exits 1 if any request failed (a connection error, a timeout or a non-2xx).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon, { type Request, type Result } from "autocannon";
import { startNpmStart as startServer, type Target } from "./npm-start.js";

const ROOT = resolve(import.meta.dirname, "..");
const DURATION = Number(process.env.LOAD_DURATION ?? 20);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 2);

function existingServer(url: string): Target {
  const host = new URL(url).hostname;
  if (!["127.0.0.1", "localhost", "[::1]", "::1"].includes(host)) throw new Error(`LOAD_URL must be a loopback address, not ${host}`);
  const key = process.env.PLATFORM_API_KEY;
  if (!key) throw new Error("LOAD_URL needs the server's key in PLATFORM_API_KEY");
  return { url, key, stop: async () => undefined };
}

async function call(target: Target, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${target.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

const BOUNDARY = "----platform-load-boundary";
function multipart(n: number): string {
  const lines = Array.from({ length: 8 + (n % 8) }, (_, i) => `{"custom_id":"u${n}-${i}","body":{"input":["load line ${i}"]}}\n`).join("");
  return [
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n`,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="load-${n}.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n${lines}\r\n`,
    `--${BOUNDARY}--\r\n`,
  ].join("");
}

/** Round-robin over a fixed list, per autocannon request. */
const cycle = <T>(items: T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};

async function main(): Promise<void> {
  const target = process.env.LOAD_URL ? existingServer(process.env.LOAD_URL) : await startServer();
  try {
    console.log(`Target ${target.url}; ${DURATION} s; ${cpus().length} cores; load average ${loadavg()[0]!.toFixed(2)}`);
    // Something to read: files, agents, prompts made before the clock starts.
    const files: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const form = new FormData();
      form.append("purpose", "batch");
      form.append("file", new Blob([`{"custom_id":"seed-${i}","body":{"input":["seed"]}}\n`]), `seed-${i}.jsonl`);
      const response = await fetch(`${target.url}/v1/files`, { method: "POST", headers: { authorization: `Bearer ${target.key}` }, body: form });
      if (!response.ok) throw new Error(`seeding a file answered ${response.status}`);
      files.push(((await response.json()) as { id: string }).id);
    }
    const agents: string[] = [];
    for (let i = 0; i < 5; i += 1) agents.push((await call(target, "POST", "/v1/agents", { model: "mistral-small-latest", name: `load-${i}` })).id);
    await call(target, "POST", "/v2/prompts", { name: `load-seed-${randomUUID()}`, definition: { content: "Hello {{name}}" } });

    const json = { "content-type": "application/json" };
    const nextFile = cycle(files);
    const nextAgent = cycle(agents);
    let uploads = 0;
    let writes = 0;
    const families: { name: string; connections: number; requests: Request[] }[] = [
      {
        name: "reads",
        connections: CONNECTIONS * 2,
        requests: [
          { method: "GET", path: "/v1/files?page_size=20" },
          { method: "GET", setupRequest: (r) => ({ ...r, path: `/v1/files/${nextFile()}` }) },
          { method: "GET", setupRequest: (r) => ({ ...r, path: `/v1/agents/${nextAgent()}` }) },
          { method: "GET", path: "/v2/prompts?pageSize=20" },
        ],
      },
      {
        name: "writes",
        connections: CONNECTIONS,
        requests: [
          { method: "POST", path: "/v1/agents", headers: json, setupRequest: (r) => ({ ...r, body: JSON.stringify({ model: "mistral-small-latest", name: `w-${(writes += 1)}` }) }) },
          { method: "PATCH", headers: json, setupRequest: (r) => ({ ...r, path: `/v1/agents/${nextAgent()}`, body: JSON.stringify({ description: `d-${(writes += 1)}` }) }) },
          { method: "POST", path: "/v2/prompts", headers: json, setupRequest: (r) => ({ ...r, body: JSON.stringify({ name: `p-${randomUUID()}`, definition: { content: "Hi {{name}}" } }) }) },
        ],
      },
      {
        name: "uploads",
        connections: CONNECTIONS,
        requests: [
          { method: "POST", path: "/v1/files", headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` }, setupRequest: (r) => ({ ...r, body: multipart((uploads += 1)) }) },
        ],
      },
      {
        name: "model calls",
        connections: CONNECTIONS,
        requests: [
          { method: "POST", path: "/v1/chat/completions", headers: json, body: JSON.stringify({ model: "mistral-small-latest", messages: [{ role: "user", content: "Say hello" }], max_tokens: 32 }) },
          { method: "POST", path: "/v1/embeddings", headers: json, body: JSON.stringify({ model: "mistral-embed", input: ["one sentence to embed", "and another one"] }) },
        ],
      },
    ];

    const results: Result[] = await Promise.all(
      families.map((family) =>
        autocannon({ url: target.url, title: family.name, connections: family.connections, duration: DURATION, timeout: 10, headers: { authorization: `Bearer ${target.key}` }, requests: family.requests }),
      ),
    );

    const rows = results.map((r) => ({
      family: r.title!,
      requests: r.requests.total,
      rps: r.requests.total / r.duration,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
      errors: r.errors + r.non2xx,
      codes: Object.entries(r.statusCodeStats).map(([code, { count }]) => `${code}×${count}`).join(" "),
    }));
    const total = rows.reduce((sum, r) => sum + r.requests, 0);
    const errors = rows.reduce((sum, r) => sum + r.errors, 0);
    console.log("\n| family | connections | requests | req/s | p50 | p90 | p99 | max | errors | status codes |");
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    rows.forEach((r, i) =>
      console.log(`| ${r.family} | ${families[i]!.connections} | ${r.requests} | ${r.rps.toFixed(1)} | ${r.p50} ms | ${r.p90} ms | ${r.p99} ms | ${r.max} ms | ${r.errors} | ${r.codes} |`),
    );
    console.log(`\nTotal: ${total} requests in ${DURATION} s, ${(total / DURATION).toFixed(1)} req/s, ${errors} errors`);
    if (errors > 0) process.exitCode = 1;
  } finally {
    await target.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
