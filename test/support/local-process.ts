import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach } from "vitest";
import { ROOT_DIR } from "../../infra/local/stack.js";

/** `npm start` as a child process: its URL, its key, and a way to kill it with everything it started. */
export interface StartedProcess {
  /** The process started: `npm` itself with `viaNpm`, else tsx. */
  pid: number;
  url: string;
  key: string;
  /** Everything it printed (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL to its whole process group (tsx, node, DynamoDB Local's java): a crash, not a shutdown. */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();

const killGroup = (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // The group is gone already.
  }
};

/** Kills every process this module started that is still there (afterAll, whatever happened). */
export async function killAllStarted(): Promise<void> {
  await Promise.all([...running].map((child) => stopped(child, () => killGroup(child))));
}

function stopped(child: ChildProcess, kill: () => void): Promise<void> {
  const gone = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  kill();
  return gone;
}

/**
 * Runs `tsx infra/local/start.ts` (what `npm start` runs) in its own process group, on a free port, with
 * the given data directory and key, and answers once it serves. Env of the test run's own backends is
 * not passed on: the child starts its own.
 */
export async function startNpmStart(options: {
  dataDir: string;
  key: string;
  timeoutMs?: number;
  port?: number;
  /** The per-request access lines, off in tests unless asked for. */
  accessLog?: boolean;
  /** Run the real `npm start` (npm, its shell, node) instead of tsx directly. */
  viaNpm?: boolean;
  /** The handlers' POWERTOOLS_LOG_LEVEL (default ERROR: quiet tests); the log scan runs at DEBUG. */
  logLevel?: string;
  /** More of the child's environment (e.g. OUTBOUND_ALLOW_LOOPBACK), over what it would inherit. */
  env?: Record<string, string>;
}): Promise<StartedProcess> {
  // Port 0 lets the server's own listen pick a free port and print it: a port found free beforehand could be taken
  // by another worker's process before npm start binds it (seen in a full run). A restart passes the port it had, so
  // workers and clients keep their URL (`portOf(server)`).
  const port = options.port ?? 0;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(AWS_|TABLE_|STATE_MACHINE_|FILES_BUCKET|INFERENCE_|VITEST)/.test(name)) env[name] = value;
  }
  Object.assign(env, {
    PORT: String(port),
    PLATFORM_DATA_DIR: options.dataDir,
    PLATFORM_API_KEY: options.key,
    POWERTOOLS_LOG_LEVEL: options.logLevel ?? "ERROR",
    ACCESS_LOG: options.accessLog ? "on" : "off",
    ...options.env,
  });
  // A hang limit, not a speed check: in CI four boots at once on two cores (tsx, DynamoDB Local's JVM, the
  // stand-ins, beside the other workers' files) took over a minute each, where one alone takes ~10 s. It stays
  // under the hooks' limit (vitest.config.ts, 180 s) so a hang fails with the child's output, not a bare timeout.
  const timeoutMs = options.timeoutMs ?? 150_000;
  const [command, args] = options.viaNpm ? ["npm", ["start", "--silent"]] : [join(ROOT_DIR, "node_modules/.bin/tsx"), ["infra/local/start.ts"]];
  const child = spawn(command, args, { cwd: ROOT_DIR, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  const chunks: string[] = [];
  const output = () => chunks.join("");
  const serving = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not serve within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
    const onData = (data: Buffer) => {
      chunks.push(String(data));
      // Its banner may arrive in more than one chunk: the URL first, the key and workspace lines after it.
      const url = /Platform API listening on (\S+)/.exec(output())?.[1];
      if (url && /Workspace:\s+\S+/.test(output())) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (data: Buffer) => chunks.push(String(data)));
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code ?? signal}) before serving:\n${output()}`));
    });
  });
  try {
    const url = await serving;
    return { pid: child.pid!, url, key: options.key, output, kill: () => stopped(child, () => killGroup(child)) };
  } catch (error) {
    await stopped(child, () => killGroup(child));
    throw error;
  }
}

/** The port a started server listens on, for starting it again on the same one. */
export const portOf = (server: Pick<StartedProcess, "url">): number => Number(new URL(server.url).port);

/** A small deterministic generator (mulberry32), so a failing run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * For the ring's `npm start` tests: a fresh data directory per call, all removed (and every started process
 * killed) after the file's tests; and `until`, which polls a probe until it answers something.
 */
export function useNpmStartDirs(prefix: string): { dataDir(): string } {
  const dirs: string[] = [];
  afterAll(async () => {
    await killAllStarted();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    dataDir() {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` (its errors count as no answer) until it answers something other than undefined. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    await sleep(everyMs);
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/**
 * For tests that run reference workers: the in-process ones are stopped after each test, worker processes
 * (spawned in their own process group) killed after the file.
 */
export function useWorkerCleanup(): { workers: { stop(): Promise<void> }[]; children: ChildProcess[] } {
  const workers: { stop(): Promise<void> }[] = [];
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });
  afterAll(() => children.forEach(killGroup));
  return { workers, children };
}

/** An admin CLI (`npm run <script> -- …`) against the stack of `dataDir`, as an operator runs it; its exit code and output. */
export async function runCli(script: string, args: string[], dataDir: string): Promise<{ code: number; output: string }> {
  const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, PLATFORM_DATA_DIR: dataDir };
  try {
    const { stdout, stderr } = await promisify(execFile)("npm", ["run", "--silent", script, "--", ...args], { cwd: ROOT_DIR, env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}
