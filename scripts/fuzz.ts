/**
 * `npm run fuzz -- --runs 500 [--seed 42] [--route "POST /v1/agents"]`: the fuzz ring (test/fuzz/) with more
 * cases than `npm test` runs, a seed of your choice (a random one by default, printed), and optionally one
 * route. A failure prints fast-check's report: the seed and path to replay, and the shrunk request.
 */
import { spawnSync } from "node:child_process";
import { cliArgs } from "./cli-target.js";

const USAGE = `Usage:
  npm run fuzz -- [--runs 200] [--seed N] [--route "METHOD /path"]

Runs the fuzz ring (test/fuzz/) with that many generated requests per route, from a seed (random and
printed unless given), over every route or one.`;

const { values } = cliArgs(USAGE, { runs: { type: "string", default: "200" }, seed: { type: "string" }, route: { type: "string" } }, false);
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
console.log(`fuzz ring: ${values.runs} requests per route, seed ${seed}${values.route ? `, route ${values.route}` : ""}`);
const result = spawnSync("npx", ["vitest", "run", "test/fuzz/", ...(values.route ? ["-t", values.route] : [])], {
  stdio: "inherit",
  env: { ...process.env, FUZZ_RUNS: values.runs, FUZZ_SEED: seed },
});
process.exit(result.status ?? 1);
