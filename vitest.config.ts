import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import LongestFirst from "./test/support/sequencer.js";

/**
 * Workers: twice the cores (at least 4). Most files wait on DynamoDB Local, s3rver, HTTP and child processes
 * rather than compute, so one worker per core left the cores half idle (docs/decisions/0047-test-suite-in-parallel.md);
 * TEST_WORKERS overrides it (TEST_WORKERS=1 runs the files one after another, as before).
 */
const WORKERS = Number(process.env.TEST_WORKERS ?? Math.max(4, availableParallelism() * 2));

/** What every project shares; the run's backends are the root's global setup, started once for all projects. */
const shared = {
  setupFiles: ["test/support/worker-env.ts"],
  env: {
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    POWERTOOLS_LOG_LEVEL: "SILENT",
    AWS_REGION: "us-east-1",
  },
  pool: "forks" as const,
  // Limits for a hang, not for speed: with four workers on two cores a file runs up to twice as long as it did
  // alone (test/infra's bundling and synth in a hook, the SDK's multi-megabyte uploads); on a loaded machine they hit 30 s / 60 s.
  testTimeout: 60_000,
  hookTimeout: 180_000,
};

/** `npm run test:fast`: unit, handler and contract tests: no `npm start`, no stack scenario (docs/testing.md). */
const FAST = ["test/unit/**/*.test.ts", "test/handlers/**/*.test.ts", "test/contract/**/*.test.ts"];

/** The test files under `folders` whose text matches `pattern`, as the globs Vitest takes. */
function filesMatching(folders: string[], pattern: RegExp): string[] {
  return folders.flatMap((folder) =>
    (readdirSync(folder, { recursive: true }) as string[])
      .filter((name) => name.endsWith(".test.ts") && pattern.test(readFileSync(join(folder, name), "utf8")))
      .map((name) => `${folder}/${name}`),
  );
}

/**
 * Files run without isolation: a worker keeps its module cache from file to file, so the handlers, the SDK
 * clients and zod schemas are imported once per worker, not once per file (import was half of the CPU of the
 * `fast` and `stack` projects). A file that changes what the next file in its worker would see needs its own
 * module graph and keeps an isolated worker: one that replaces modules (vi.mock and its kin), or writes
 * process.env (directly, or through the helpers that point a provider or the telemetry at a test's own:
 * the SDK clients and the provider registry read the environment once per process).
 */
const CHANGES_PROCESS =
  /\bvi\.(mock|doMock|resetModules|stubGlobal|stubEnv)\(|process\.env(\.[A-Z_]+|\[[^\]]+\])\s*(=[^=]|\?\?=)|delete process\.env|Object\.assign\(process\.env|\b(useFakeUpstream|useTelemetryDir)\(/;
const FAST_ISOLATED = filesMatching(["test/unit", "test/handlers", "test/contract"], CHANGES_PROCESS);

/**
 * The tests that read the synthesized CDK app (test/infra/*.synth.ts), behind one file: one worker synthesizes the
 * app once for all of them (~20 s of CPU an app). As files of their own, each worker that picked one up
 * synthesized it again. They only read templates and change no process state.
 */
const SYNTH = ["test/infra/synthesized-app.test.ts"];

/**
 * The files that start `npm start` (a node server, DynamoDB Local's JVM, s3rver) and wait for it by the clock.
 * They run last, as their own group, two at a time: four of them booting at once beside the other workers, at the
 * start of a run on a fresh clone (the sequencer puts them first), took more than the 60–240 s they allow
 * (docs/decisions/0051-npm-start-files-run-last.md).
 */
const STARTS_NPM_START = filesMatching(["test"], /\b(startNpmStart|serveCounted)\(/);

/** The other files: the integration, SDK, fuzz and ring files against the run's embedded backends, and the rest of test/infra. */
const STACK_FOLDERS = ["test/integration", "test/sdk", "test/sdk-examples", "test/fuzz", "test/ring", "test/infra"];
const STACK_ISOLATED = filesMatching(STACK_FOLDERS, CHANGES_PROCESS);

export default defineConfig({
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    maxWorkers: WORKERS,
    sequence: { sequencer: LongestFirst },
    projects: [
      { test: { ...shared, name: "fast", include: FAST, exclude: FAST_ISOLATED, isolate: false } },
      { test: { ...shared, name: "fast-isolated", include: FAST_ISOLATED } },
      { test: { ...shared, name: "synth", include: SYNTH, isolate: false } },
      { test: { ...shared, name: "stack", include: STACK_FOLDERS.map((folder) => `${folder}/**/*.test.ts`), exclude: [...SYNTH, ...STARTS_NPM_START, ...STACK_ISOLATED], isolate: false } },
      { test: { ...shared, name: "stack-isolated", include: STACK_ISOLATED, exclude: [...SYNTH, ...STARTS_NPM_START] } },
      { test: { ...shared, name: "npm-start", include: STARTS_NPM_START, maxWorkers: Math.min(WORKERS, 2), sequence: { groupOrder: 1 } } },
    ],
  },
});
