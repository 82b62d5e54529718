/**
 * `npm test`: the type-check, the layer check and Vitest, the first two beside the third rather than before it
 * (they took ~100 s of a 2-core machine's wall before the first test), and the wall time at the end.
 * Arguments go to Vitest (`npm test -- --reporter=json …`, `npm test -- --project fast`).
 *
 * The type-check is TypeScript 7's native compiler (the `typescript-native` alias: ~12 s for the whole tree where
 * TypeScript 5's took 160–330 s on two cores; `typescript` 5.9 stays for the tools that use its JavaScript API,
 * dependency-cruiser among them), and incremental: its state is kept in node_modules/.cache/tsc7 (ignored, and
 * gone with node_modules, so a fresh install checks everything). The checks' output is held back and printed after
 * Vitest's, so the test report stays readable; any of the three failing fails the run
 * (docs/decisions/0047-test-suite-in-parallel.md).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "node_modules/.bin");
/** By path: both TypeScripts declare a `tsc` bin, and which one node_modules/.bin/tsc names depends on the install. */
const TSC = join(ROOT, "node_modules/typescript-native/bin/tsc");
const started = Date.now();

interface Outcome {
  name: string;
  code: number;
  output: string;
  seconds: number;
}

function run(name: string, command: string, args: string[], options: { quiet: boolean }): Promise<Outcome> {
  const began = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: options.quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => chunks.push(chunk));
    const done = (code: number) => resolve({ name, code, output: Buffer.concat(chunks).toString("utf8"), seconds: (Date.now() - began) / 1000 });
    child.on("error", (error) => {
      chunks.push(Buffer.from(String(error)));
      done(1);
    });
    child.on("exit", (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

/** tsc, then the layer check: one after the other, so the two together take one core beside Vitest's. */
async function checks(): Promise<Outcome[]> {
  const tsc = await run("type-check", process.execPath, [TSC, "--noEmit", "-p", ".", "--incremental", "--tsBuildInfoFile", "node_modules/.cache/tsc7/tsbuildinfo"], { quiet: true });
  const layers = await run("layers", "npm", ["run", "--silent", "layers"], { quiet: true });
  return [tsc, layers];
}

const [checked, vitest] = await Promise.all([checks(), run("vitest", join(BIN, "vitest"), ["run", ...process.argv.slice(2)], { quiet: false })]);
const outcomes = [...checked, vitest];
for (const outcome of checked) {
  const text = outcome.output.trim();
  if (outcome.code !== 0 || text) console.log(`\n${outcome.name} (${outcome.code === 0 ? "passed" : "FAILED"}):\n${text}`);
}
const wall = (Date.now() - started) / 1000;
const status = outcomes.map((o) => `${o.name} ${o.code === 0 ? "ok" : "FAILED"} in ${o.seconds.toFixed(0)} s`).join(", ");
console.log(`\nnpm test: ${status}; wall ${Math.floor(wall / 60)}m${String(Math.round(wall % 60)).padStart(2, "0")}s`);
process.exit(outcomes.some((o) => o.code !== 0) ? 1 : 0);
