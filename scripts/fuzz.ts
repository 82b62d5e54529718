/**
 * `npm run fuzz -- --runs 500 [--seed 42] [--route "POST /v1/agents"]`: the fuzz ring (test/fuzz/) with more
 * cases than `npm test` runs, a seed of your choice (a random one by default, printed), and optionally one
 * route. A failure prints fast-check's report: the seed and path to replay, and the shrunk request.
 *
 * `npm run fuzz -- --duration 3600 --concurrency 16`: the soak (scripts/fuzz-soak.ts) against a running
 * `npm start`: the ring's multipart, OTLP and model-call requests for that long, failing on a restart, a
 * 5xx, a request over its budget, or the server's memory 100 MB above where it started.
 */
import { spawnSync } from "node:child_process";
import { apiTarget, cliArgs, fail } from "./cli-target.js";

const USAGE = `Usage:
  npm run fuzz -- [--runs 200] [--seed N] [--route "METHOD /path"]
  npm run fuzz -- --duration SECONDS [--concurrency 16] [--budget-ms 10000] [--settle 30] [--seed N] [--url URL --key KEY]

Runs the fuzz ring (test/fuzz/) with that many generated requests per route, from a seed (random and
printed unless given), over every route or one.

With --duration: soaks a running npm start (or --url/--key, PLATFORM_URL/PLATFORM_API_KEY) with the ring's
multipart, OTLP and model-call requests, that many at once, and reports restarts, 5xx, requests over the
budget and the server's memory (start, peak, after --settle seconds); exit code 1 on any of them or on
memory after more than 100 MB above the start.`;

const { values } = cliArgs(
  USAGE,
  {
    runs: { type: "string", default: "200" },
    seed: { type: "string" },
    route: { type: "string" },
    duration: { type: "string" },
    concurrency: { type: "string", default: "16" },
    "budget-ms": { type: "string", default: "10000" },
    settle: { type: "string", default: "30" },
    url: { type: "string" },
    key: { type: "string" },
  },
  false,
);
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
const positive = (name: string, value: string) => (/^\d+$/.test(value) && Number(value) > 0 ? Number(value) : fail(`--${name} must be a positive integer, not ${value}\n\n${USAGE}`));

if (values.duration !== undefined) {
  const { soak } = await import("./fuzz-soak.js");
  const target = apiTarget({ url: values.url, key: values.key });
  const passed = await soak({
    ...target,
    durationSeconds: positive("duration", values.duration),
    concurrency: positive("concurrency", values.concurrency),
    budgetMs: positive("budget-ms", values["budget-ms"]),
    settleSeconds: Number(values.settle),
    seed: Number(seed),
  });
  process.exit(passed ? 0 : 1);
}

console.log(`fuzz ring: ${values.runs} requests per route, seed ${seed}${values.route ? `, route ${values.route}` : ""}`);
const result = spawnSync("npx", ["vitest", "run", "test/fuzz/", ...(values.route ? ["-t", values.route] : [])], {
  stdio: "inherit",
  env: { ...process.env, FUZZ_RUNS: values.runs, FUZZ_SEED: seed },
});
process.exit(result.status ?? 1);
