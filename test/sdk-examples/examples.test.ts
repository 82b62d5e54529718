/**
 * The official SDK's example programs, unmodified, against `npm start`: each runs in its own node process
 * from a byte-for-byte copy of the installed package's file, with the files it reads that the package does
 * not ship beside it (test/sdk-examples/beside/), and a `node --import` preload (redirect.mjs) that sends
 * its `https://api.mistral.ai` requests to the local server. Each must exit 0. Two run at a time.
 *
 * The copy's types are stripped by esbuild into a module beside it, which plain node runs: under a loader hook
 * (tsx) every one of the SDK's ~2,000 modules crossed to the hooks' thread and back, 7 CPU-seconds to import
 * the SDK where node alone takes 2 (docs/testing.md).
 */
import { spawn } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT_DIR } from "../../infra/local/stack.js";
import { killAllStarted, startNpmStart, type StartedProcess } from "../support/local-process.js";
import { EXAMPLE_ARGS, LEFT_OUT_EXAMPLES, SERVED_EXAMPLES } from "./examples.js";

const PACKAGE_EXAMPLES = join(ROOT_DIR, "node_modules/@mistralai/mistralai/examples/src");
const PRELOAD = join(import.meta.dirname, "redirect.mjs");
const POOL = 2;
const EXAMPLE_TIMEOUT_MS = 60_000;

/** What some examples print when the server follows the protocol they rely on (the rest: exit 0 is the check). */
const PRINTS: Partial<Record<(typeof SERVED_EXAMPLES)[number], string[]>> = {
  "async_function_calling.ts": ["calling functionName: retrievePaymentStatus", "The tool answered: «"],
  "async_function_calling_streaming.ts": ["calling functionName: retrievePaymentStatus", "The tool answered: «"],
  "reasoning.ts": ["--- thinking ---", "[offline] No reasoning model is configured"],
  "reasoning_response_shape.ts": ['"type": "thinking"', "typeof content = string"],
  "async_batch_jobs.ts": ["SUCCESS"],
  "model_management.ts": ["my-fine-tuned-model"],
  // Its ocr.pdf (which the package does not ship) is test/sdk-examples/beside/ocr.pdf: two pages with a text layer.
  "async_ocr_process_from_file.ts": ["OCR ", "Sample document for OCR", "Second page of the sample."],
  // Its conversation ends on an assistant message: the SDKError it prints is the 400 Mistral's API answers.
  "error_handling.ts": ["Status 400", "invalid_request_message_order"],
  // The offline transcriber measures what it was streamed over the WebSocket and says it was not transcribed.
  "realtime_transcription.ts": ["[offline] No speech-to-text model is configured; 2.0 s of 16 kHz pcm_s16le audio"],
};

let server: StartedProcess;
let runDir: string;
let dataDir: string;
let fineTuned: string;

/** At most POOL examples run at once, whatever vitest schedules. */
let running = 0;
const waiting: (() => void)[] = [];
async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= POOL) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

function run(command: string, args: string[], options: { cwd: string; env: Record<string, string | undefined>; timeoutMs: number }) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: string[] = [];
    child.stdout.on("data", (d: Buffer) => chunks.push(String(d)));
    child.stderr.on("data", (d: Buffer) => chunks.push(String(d)));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? -1 : null), output: chunks.join("") });
    });
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "platform-sdk-examples-"));
  server = await startNpmStart({ dataDir, key: `examples-${randomBytes(16).toString("hex")}` });
  // Under the repository, so the examples' `import "@mistralai/mistralai"` resolves to the installed package.
  mkdirSync(join(ROOT_DIR, ".data"), { recursive: true });
  runDir = mkdtempSync(join(ROOT_DIR, ".data", "sdk-examples-"));
  cpSync(join(import.meta.dirname, "beside"), runDir, { recursive: true });
  writeFileSync(join(runDir, "speech.pcm"), Buffer.alloc(2 * 16_000 * 2));
  // model_management.ts updates, archives and unarchives the fine-tuned model it is given, as an operator registers one.
  const workspace = /Workspace:\s+(\S+)/.exec(server.output())![1]!;
  fineTuned = `ft:open-mistral-nemo:examples:${randomBytes(3).toString("hex")}`;
  const registered = await run(
    join(ROOT_DIR, "node_modules/.bin/tsx"),
    ["scripts/models.ts", "register", "--workspace", workspace, "--id", fineTuned, "--root", "open-mistral-nemo"],
    { cwd: ROOT_DIR, env: { PATH: process.env.PATH, HOME: process.env.HOME, PLATFORM_DATA_DIR: dataDir }, timeoutMs: 60_000 },
  );
  if (registered.code !== 0) throw new Error(`could not register ${fineTuned}:\n${registered.output}`);
});

afterAll(async () => {
  await killAllStarted();
  rmSync(dataDir, { recursive: true, force: true });
  if (runDir) rmSync(runDir, { recursive: true, force: true });
});

describe("the official SDK's example programs against npm start", () => {
  it("lists every example the package ships as either run or left out with a reason", () => {
    const shipped = readdirSync(PACKAGE_EXAMPLES, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .sort();
    expect([...SERVED_EXAMPLES, ...Object.keys(LEFT_OUT_EXAMPLES)].sort()).toEqual(shipped);
  });

  it.concurrent.each(SERVED_EXAMPLES)(
    "%s exits 0",
    async (example) => {
      const copy = join(runDir, example);
      mkdirSync(dirname(copy), { recursive: true });
      copyFileSync(join(PACKAGE_EXAMPLES, example), copy);
      const source = readFileSync(copy);
      expect(source).toEqual(readFileSync(join(PACKAGE_EXAMPLES, example)));
      const program = copy.replace(/\.ts$/, ".mjs");
      const stripped = await transform(source.toString("utf8"), { loader: "ts", format: "esm", target: "node20", sourcefile: copy, sourcemap: "inline" });
      writeFileSync(program, stripped.code);
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MISTRAL_API_KEY: server.key,
        MISTRAL_EXAMPLES_SERVER: server.url,
        // The realtime example's WebSocket is not fetch (which the preload redirects): it reads its server from here.
        MISTRAL_BASE_URL: server.url,
        MISTRAL_FINE_TUNED_MODEL_ID: fineTuned,
        // The SDK's OTLP exporter sends with Node's http module, which the fetch redirect does not see: name the ingest route.
        MISTRAL_OTLP_TRACES_ENDPOINT: `${server.url}/telemetry/v1/traces`,
      };
      const result = await slot(() => run(process.execPath, ["--enable-source-maps", "--import", PRELOAD, program, ...(EXAMPLE_ARGS[example] ?? [])], { cwd: runDir, env, timeoutMs: EXAMPLE_TIMEOUT_MS }));
      expect(result.code, `${example} printed:\n${result.output.slice(-4000)}`).toBe(0);
      for (const expected of PRINTS[example] ?? []) expect(result.output, example).toContain(expected);
    },
    EXAMPLE_TIMEOUT_MS * 3,
  );
});
