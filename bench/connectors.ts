/**
 * `npm run bench:connectors`: prints figures, asserts nothing.
 *
 *  1. A tool call through `POST /v1/connectors/{id}/tools/add/call` (authorizer, DynamoDB reads, the sealed
 *     headers opened, the guarded fetch, a fresh MCP session) against the same call made straight with the
 *     official MCP client to the same loopback MCP server, sequentially.
 *  2. `GET /v1/connectors?page_size=100` for a caller who sees 20 connectors, in an organization of 20 and
 *     of 500 (the other 480 private to other members): the visibility filter's cost.
 *
 * One process (HTTP client, local server, handlers, MCP server) plus DynamoDB Local; machine figures, not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startLocalStack } from "../infra/local/stack.js";
import { startMcpServer } from "../test/support/mcp-server.js";
import { ms, summarize, table, timed, type Summary } from "./stats.js";

const CALLS = Number(process.env.BENCH_CONNECTOR_CALLS ?? 100);
const LISTS = 40;
const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Connectors benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-connectors-"));
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });
const mcp = await startMcpServer();
const { newTenant } = await import("../test/support/tenant.js");

async function api(key: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

const row = (what: string, s: Summary) => [what, String(s.n), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
try {
  // 1. Tool calls.
  const connector = await api(stack.apiKey, "POST", "/v1/connectors", { name: "bench-mcp", description: "bench", server: mcp.url, global_headers: { "x-bench": { value: "secret" } } });
  const viaRoute: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < 10; i += 1) await api(stack.apiKey, "POST", `/v1/connectors/${connector.id}/tools/add/call`, { arguments: { a: i, b: 1 } });
  for (let i = 0; i < CALLS; i += 1) {
    viaRoute.push(await timed(() => api(stack.apiKey, "POST", `/v1/connectors/${connector.id}/tools/add/call`, { arguments: { a: i, b: 1 } })));
    direct.push(
      await timed(async () => {
        const client = new Client({ name: "bench", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { "x-bench": "secret" } } }));
        await client.callTool({ name: "add", arguments: { a: i, b: 1 } });
        await client.close();
      }),
    );
  }
  log("\n== Tool call: through the route vs the MCP client straight to the server (sequential) ==");
  log(table([["path", "n", "p50", "p90", "p99", "max"], row("POST …/tools/add/call", summarize(viaRoute)), row("MCP client direct", summarize(direct))]));

  // 2. Lists: a caller seeing 20 connectors, in an organization of 20, then of 500.
  const viewer = await newTenant({ organization: stack.organization, workspace: stack.workspace, roles: ["contributor"] });
  for (let i = 0; i < 20; i += 1) await api(viewer.key, "POST", "/v1/connectors", { name: `seen-${i}`, description: "d", server: mcp.url });
  const listing = async () => {
    const samples: number[] = [];
    for (let i = 0; i < LISTS; i += 1) samples.push(await timed(() => api(viewer.key, "GET", "/v1/connectors?page_size=100")));
    return summarize(samples);
  };
  const small = await listing();
  const others = await Promise.all(Array.from({ length: 8 }, () => newTenant({ organization: stack.organization, workspace: stack.workspace, roles: ["contributor"] })));
  for (let i = 0; i < 480; i += 1) await api(others[i % others.length]!.key, "POST", "/v1/connectors", { name: `hidden-${i}`, description: "d", server: mcp.url });
  const large = await listing();
  log("\n== GET /v1/connectors?page_size=100, the caller sees 20 ==");
  log(table([["organization's connectors", "n", "p50", "p90", "p99", "max"], row("20 (+1 admin's)", small), row("500 (480 private to others)", large)]));
} finally {
  await mcp.close();
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
