/**
 * `npm run bench:gateway`: this project's model-call path against Portkey's open-source gateway, side by side
 * in one run (docs/benchmarks.md §5).
 *
 * It starts, each in its own process on 127.0.0.1:
 *  - a stub OpenAI-compatible upstream (bench/gateway-upstream.ts);
 *  - `npm start` with a catalog whose `mistral-small-latest` is served by that upstream (authorizer cache at
 *    its cloud setting, no spend or rate limit, caches warmed before any timing);
 *  - Portkey's gateway 1.15.2, installed by this bench with npm into bench/.portkey (ignored by git; not a
 *    dependency of the project), its provider `openai` with the stub as custom host.
 *
 * Then, in interleaved rounds (each round calls the upstream directly, then each gateway, in turn, so all see
 * the same machine load): the non-stream chat overhead (gateway minus direct, same round) at 200 B, 10 KB and
 * 100 KB prompts; the stream overhead to the first token and to the end of the stream; and a 10-connection
 * autocannon run per gateway with its requests/s and CPU seconds per 1,000 calls (our server and DynamoDB
 * Local apart). The load average is printed next to every figure. BENCH_ROUNDS scales the round counts,
 * BENCH_DURATION the autocannon runs (seconds).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { freePort } from "../infra/local/net.js";
import { ms, summarize, table, type Summary } from "./stats.js";

const ROOT = resolve(import.meta.dirname, "..");
const PORTKEY_VERSION = "1.15.2";
const PORTKEY_DIR = join(ROOT, "bench", ".portkey");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const MODEL = "mistral-small-latest";
const UPSTREAM_MODEL = "stub-model";

const load = () => loadavg().map((l) => l.toFixed(1)).join(" / ");
const log = (line = "") => process.stdout.write(`${line}\n`);

interface Proc {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A child in its own process group, stopped (with everything it started) on stop() or when the bench exits. */
function launch(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<{ proc: Proc; match: RegExpExecArray }> {
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((done) => child.once("exit", done));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return;
    }
    const hard = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone already
      }
    }, 10_000);
    await gone;
    clearTimeout(hard);
  };
  cleanups.push(stop);
  return new Promise((done, fail) => {
    let out = "";
    const seen = (data: Buffer) => {
      out += String(data);
      const match = ready.exec(out);
      if (match) done({ proc: { child, stop }, match });
    };
    child.stdout!.on("data", seen);
    child.stderr!.on("data", (data: Buffer) => (out += String(data)));
    child.once("exit", (code) => fail(new Error(`${command} ${args.join(" ")} exited (${code}) before serving:\n${out.slice(-2000)}`)));
  });
}

const cleanups: (() => Promise<void>)[] = [];
async function cleanup(): Promise<void> {
  for (const stop of cleanups.splice(0).reverse()) await stop().catch(() => undefined);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanup().finally(() => process.exit(130)));

// ------------------------------------------------------------------------------------------- the processes

async function startUpstream(): Promise<string> {
  const { match } = await launch(join(ROOT, "node_modules/.bin/tsx"), ["bench/gateway-upstream.ts"], {}, /listening (\S+)/);
  return match[1]!;
}

async function startOurs(upstream: string): Promise<{ url: string; key: string; pgid: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-gateway-"));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const catalog = JSON.parse(readFileSync(join(ROOT, "config/models.offline.json"), "utf8")) as { providers: Record<string, unknown>; models: { id: string; provider: string; upstream: string }[] };
  catalog.providers["bench-upstream"] = { type: "openai-compatible", baseUrl: upstream, dialect: "openai" };
  const model = catalog.models.find((m) => m.id === MODEL)!;
  model.provider = "bench-upstream";
  model.upstream = UPSTREAM_MODEL;
  const catalogFile = join(dataDir, "catalog.json");
  writeFileSync(catalogFile, JSON.stringify(catalog));
  const key = `bench-${randomBytes(16).toString("hex")}`;
  const port = await freePort();
  const { proc, match } = await launch(
    join(ROOT, "node_modules/.bin/tsx"),
    ["infra/local/start.ts"],
    {
      PORT: String(port),
      PLATFORM_DATA_DIR: join(dataDir, "data"),
      PLATFORM_API_KEY: key,
      MODEL_CATALOG: catalogFile,
      AUTHORIZER_CACHE_SECONDS: "60",
      ACCESS_LOG: "off",
      POWERTOOLS_LOG_LEVEL: "ERROR",
    },
    /Platform API listening on (\S+)/,
  );
  return { url: match[1]!, key, pgid: proc.child.pid! };
}

/** Portkey's gateway, installed into bench/.portkey on first use (pinned; never a project dependency). */
async function startPortkey(): Promise<{ url: string; pgid: number }> {
  const entry = join(PORTKEY_DIR, "node_modules/@portkey-ai/gateway/build/start-server.js");
  const installed = existsSync(join(PORTKEY_DIR, "node_modules/@portkey-ai/gateway/package.json"))
    ? (JSON.parse(readFileSync(join(PORTKEY_DIR, "node_modules/@portkey-ai/gateway/package.json"), "utf8")) as { version: string }).version
    : undefined;
  if (installed !== PORTKEY_VERSION) {
    log(`Installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${PORTKEY_DIR} (first run only)…`);
    mkdirSync(PORTKEY_DIR, { recursive: true });
    writeFileSync(join(PORTKEY_DIR, "package.json"), JSON.stringify({ private: true, description: "npm run bench:gateway's copy of Portkey's gateway" }));
    await new Promise<void>((done, fail) => {
      const npm = spawn("npm", ["install", "--prefix", PORTKEY_DIR, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", `@portkey-ai/gateway@${PORTKEY_VERSION}`], { stdio: "inherit" });
      npm.once("exit", (code) => (code === 0 ? done() : fail(new Error(`npm install of Portkey's gateway failed (${code})`))));
    });
  }
  const port = await freePort();
  // Portkey listens on every interface; the preload keeps it on the loopback, as every server here.
  const preload = join(PORTKEY_DIR, "loopback.mjs");
  writeFileSync(
    preload,
    `import net from "node:net";\nconst listen = net.Server.prototype.listen;\nnet.Server.prototype.listen = function (...args) {\n  if (typeof args[0] === "object" && args[0] !== null && !args[0].host) args[0] = { ...args[0], host: "127.0.0.1" };\n  else if (typeof args[0] === "number" && typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1");\n  return listen.apply(this, args);\n};\n`,
  );
  const { proc } = await launch(process.execPath, ["--import", preload, entry, `--port=${port}`, "--headless"], { NODE_ENV: "production" }, /Ready for connections/);
  return { url: `http://127.0.0.1:${port}`, pgid: proc.child.pid! };
}

// ------------------------------------------------------------------------------------------------ CPU time

const TICKS = 100;

/** CPU seconds so far of a process group's processes, split by what they are. */
function cpuOf(pgid: number): { server: number; dynamodb: number } {
  const out = { server: 0, dynamodb: 0 };
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue;
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmdline.includes("DynamoDBLocal")) out.dynamodb += seconds;
      else out.server += seconds;
    } catch {
      // a process that ended meanwhile
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- the calls

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

const promptOf = (bytes: number) => {
  const words = "The quarterly report shows that revenue from the European market grew faster than expected. ";
  return words.repeat(Math.ceil(bytes / words.length)).slice(0, bytes);
};
const chatBody = (model: string, prompt: string, stream = false) => JSON.stringify({ model, messages: [{ role: "user", content: prompt }], ...(stream ? { stream: true } : {}) });

interface Timed {
  total: number;
  serverTiming?: number;
}

async function plainCall(target: Target, model: string, body: string): Promise<Timed> {
  const start = performance.now();
  const response = await fetch(`${target.url}/v1/chat/completions`, { method: "POST", headers: target.headers, body });
  const text = await response.text();
  const total = performance.now() - start;
  if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}: ${text.slice(0, 300)}`);
  const timing = response.headers.get("server-timing");
  const own = timing ? [...timing.matchAll(/platform-(?:before|after);dur=([\d.]+)/g)].reduce((sum, m) => sum + Number(m[1]), 0) : undefined;
  void model;
  return { total, serverTiming: own };
}

async function streamCall(target: Target, body: string): Promise<{ first: number; end: number }> {
  const start = performance.now();
  const response = await fetch(`${target.url}/v1/chat/completions`, { method: "POST", headers: target.headers, body });
  if (response.status !== 200 || !response.body) throw new Error(`${target.name} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const decoder = new TextDecoder();
  let text = "";
  let first: number | undefined;
  for await (const chunk of response.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (first === undefined && /"content":"tok/.test(text)) first = performance.now() - start;
  }
  const end = performance.now() - start;
  if (!text.includes("[DONE]") || first === undefined) throw new Error(`${target.name}'s stream ended without content or [DONE]: ${text.slice(0, 300)}`);
  return { first, end };
}

/** The platform's own time (Server-Timing) at three percentiles: whether a tail is ours or around us. */
const percentiles = (s: Summary) => `${ms(s.p50)} / ${ms(s.p90)} / ${ms(s.p99)}`;
const row = (name: string, s: Summary, extra: string[] = []) => [name, String(s.n), ms(s.p50), ms(s.p90), ms(s.p99), ...extra];

// -------------------------------------------------------------------------------------------------- main

async function retried<T>(what: string, start: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= tries) throw error;
      log(`${what} did not start (${(error as Error).message.split("\n").find((l) => l.includes("failed")) ?? "see above"}); trying again (load average ${load()})`);
    }
  }
}

async function main(): Promise<void> {
  log(`bench:gateway — ${new Date().toISOString()}, Node ${process.version}, load average at start ${load()}`);
  const upstream = await startUpstream();
  // One after the other: on a busy machine DynamoDB Local may miss its start-up deadline, and is given three tries.
  const ours = await retried("npm start", () => startOurs(upstream));
  const portkey = await startPortkey();
  const targets: Target[] = [
    { name: "this project", url: ours.url, headers: { authorization: `Bearer ${ours.key}`, "content-type": "application/json" } },
    {
      name: "Portkey 1.15.2",
      url: portkey.url,
      headers: { authorization: "Bearer stub", "content-type": "application/json", "x-portkey-provider": "openai", "x-portkey-custom-host": `${upstream}/v1` },
    },
  ];
  const direct: Target = { name: "upstream direct", url: upstream, headers: { "content-type": "application/json" } };
  const modelOf = (t: Target) => (t === targets[0] ? MODEL : UPSTREAM_MODEL);
  log(`upstream ${upstream}; ours ${ours.url}; Portkey ${portkey.url}`);

  // Warm-up: caches (authorizer, model card, workspace), connections, JIT.
  for (let i = 0; i < 50; i++) for (const t of [direct, ...targets]) await plainCall(t, modelOf(t), chatBody(modelOf(t), promptOf(200)));

  // Non-stream overhead, interleaved.
  for (const [label, bytes, rounds] of [
    ["200 B", 200, 300],
    ["10 KB", 10_000, 200],
    ["100 KB", 100_000, 100],
  ] as const) {
    const n = Math.max(10, Math.round(rounds * ROUNDS));
    const overhead = targets.map(() => [] as number[]);
    const own: number[] = [];
    const bodies = new Map([direct, ...targets].map((t) => [t, chatBody(modelOf(t), promptOf(bytes))]));
    for (let i = 0; i < n; i++) {
      const base = await plainCall(direct, UPSTREAM_MODEL, bodies.get(direct)!);
      // Alternate which gateway goes first, so neither always follows the direct call.
      const order = i % 2 ? [...targets].reverse() : targets;
      for (const t of order) {
        const timed = await plainCall(t, modelOf(t), bodies.get(t)!);
        overhead[targets.indexOf(t)]!.push(timed.total - base.total);
        if (timed.serverTiming !== undefined) own.push(timed.serverTiming);
      }
    }
    log();
    log(`Non-stream chat, ${label} prompt: overhead = gateway − upstream direct, same round (load average ${load()})`);
    log(
      table([
        ["gateway", "n", "p50", "p90", "p99", "Server-Timing platform p50 / p90 / p99"],
        ...targets.map((t, i) => row(t.name, summarize(overhead[i]!), [i === 0 ? percentiles(summarize(own)) : "—"])),
      ]),
    );
  }

  // Stream overhead: to the first content token and to the end of the stream.
  {
    const n = Math.max(10, Math.round(100 * ROUNDS));
    const first = targets.map(() => [] as number[]);
    const end = targets.map(() => [] as number[]);
    const failed = new Set<number>();
    for (let i = 0; i < n; i++) {
      const base = await streamCall(direct, chatBody(UPSTREAM_MODEL, promptOf(200), true));
      for (const [index, t] of targets.entries()) {
        if (failed.has(index)) continue;
        try {
          const timed = await streamCall(t, chatBody(modelOf(t), promptOf(200), true));
          first[index]!.push(timed.first - base.first);
          end[index]!.push(timed.end - base.end);
        } catch (error) {
          failed.add(index);
          log(`${t.name}: streaming failed, left out of the stream figures: ${(error as Error).message.slice(0, 200)}`);
        }
      }
    }
    log();
    log(`Stream chat, 200 B prompt, upstream first token after ${process.env.STUB_FIRST_TOKEN_MS ?? 20} ms: overhead = gateway − direct, same round (load average ${load()})`);
    log(
      table([
        ["gateway", "n", "first token p50", "p90", "p99", "end of stream p50", "p90", "p99"],
        ...targets
          .map((t, i) => ({ t, i }))
          .filter(({ i }) => !failed.has(i))
          .map(({ t, i }) => {
            const f = summarize(first[i]!);
            const e = summarize(end[i]!);
            return [t.name, String(f.n), ms(f.p50), ms(f.p90), ms(f.p99), ms(e.p50), ms(e.p90), ms(e.p99)];
          }),
      ]),
    );
  }

  // Throughput at 10 connections, and CPU per 1,000 calls, alternating the gateways.
  log();
  log(`10 connections, ${DURATION} s each, 200 B prompt, non-stream (alternating: ours, Portkey, ours, Portkey)`);
  const rows: string[][] = [["gateway", "run", "requests/s", "p50", "p99", "non-2xx", "CPU s / 1,000 calls (server)", "(DynamoDB Local)", "load average"]];
  for (let run = 1; run <= 2; run++) {
    for (const [index, t] of targets.entries()) {
      const pgid = index === 0 ? ours.pgid : portkey.pgid;
      const before = cpuOf(pgid);
      const result = await autocannon({
        url: `${t.url}/v1/chat/completions`,
        connections: 10,
        duration: DURATION,
        requests: [{ method: "POST", headers: t.headers, body: chatBody(modelOf(t), promptOf(200)) }],
      });
      const after = cpuOf(pgid);
      const calls = result.requests.total;
      const per1000 = (seconds: number) => ((seconds / calls) * 1000).toFixed(2);
      rows.push([
        t.name,
        String(run),
        (calls / result.duration).toFixed(0),
        ms(result.latency.p50, 1),
        ms(result.latency.p99, 1),
        String(result.non2xx + result.errors),
        per1000(after.server - before.server),
        index === 0 ? per1000(after.dynamodb - before.dynamodb) : "—",
        load(),
      ]);
    }
  }
  log(table(rows));
  log();
  log(`load average at the end ${load()}`);
}

try {
  await main();
} finally {
  await cleanup();
}
