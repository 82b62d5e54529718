/**
 * `npm start` as a newcomer meets it: every signal that ends a foreground program stops every child
 * (the node server, DynamoDB Local's java) and frees the port; a second start on the same data directory
 * is refused naming the first; a clean stop removes local-stack.json; the CLIs then say the stack is not
 * running instead of printing a connection stack trace.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_FILE, STACK_FILE } from "../../infra/local/lock.js";
import { canReadSockets, isLoopback, listenersOf } from "../support/listeners.js";
import { killAllStarted, runCli, startNpmStart, type StartedProcess } from "../support/local-process.js";

const run = promisify(execFile);
const dirs: string[] = [];
const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-lifecycle-"));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await killAllStarted();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every process below `pid`, from `ps` (Linux and macOS). */
async function descendants(pid: number): Promise<number[]> {
  const { stdout } = await run("ps", ["-A", "-o", "pid=,ppid="]);
  const children = new Map<number, number[]>();
  for (const line of stdout.trim().split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    children.set(parent!, [...(children.get(parent!) ?? []), child!]);
  }
  const out: number[] = [];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portAnswers = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return check();
}

describe("npm start stops everything it started", () => {
  it.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
    "%s to the npm process stops node and DynamoDB Local, frees the port and removes local-stack.json",
    async (signal) => {
      const dataDir = newDataDir();
      const started: StartedProcess = await startNpmStart({ dataDir, key: `lifecycle-${signal}-0123456789abcdef`, viaNpm: true, accessLog: true });
      const children = await descendants(started.pid);
      expect(children.length).toBeGreaterThanOrEqual(2);
      const { stdout: commands } = await run("ps", ["-o", "command=", "-p", children.join(",")]);
      expect(commands).toContain("DynamoDBLocal.jar");
      expect(existsSync(join(dataDir, STACK_FILE))).toBe(true);
      // One access line per request: method, path, status, latency, request id.
      const reply = await fetch(`${started.url}/v1/models`, { headers: { authorization: `Bearer ${started.key}` } });
      const requestId = reply.headers.get("x-request-id")!;
      expect(await until(() => started.output().includes(requestId), 5000)).toBe(true);
      expect(started.output()).toMatch(new RegExp(`GET /v1/models 200 \\d+\\.\\dms ${requestId}`));

      // What `ss -ltnp` would show: npm start, node and DynamoDB Local's java listen on loopback only.
      if (canReadSockets()) {
        const listeners = listenersOf([started.pid, ...(await descendants(started.pid))]);
        expect(listeners.length).toBeGreaterThanOrEqual(3);
        expect(listeners.filter((l) => !isLoopback(l.address))).toStrictEqual([]);
      }

      process.kill(started.pid, signal);

      expect(await until(() => [started.pid, ...children].every((pid) => !alive(pid)), 20_000), started.output()).toBe(true);
      // npm dies of a SIGHUP without passing it on: then node stops because its parent went away.
      expect(started.output()).toMatch(new RegExp(`(${signal}|parent process \\d+ exited): stopping the local stack…\nStopped\.`));
      expect(await portAnswers(started.url)).toBe(false);
      expect(existsSync(join(dataDir, STACK_FILE))).toBe(false);
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    },
    90_000,
  );
});

describe("a port in use", () => {
  it("refuses the start before it makes, locks or fills the data directory", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    const dataDir = join(newDataDir(), "never-made");

    try {
      const refused = await startNpmStart({ dataDir, key: "lifecycle-port-0123456789abcdef", port, timeoutMs: 60_000 }).then(
        () => undefined,
        (error: Error) => error.message,
      );

      expect(refused).toMatch(/exited \(1\) before serving/);
      expect(refused).toContain(`Port ${port} is in use: set PORT to a free port`);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      taken.close();
    }
  }, 90_000);
});

describe("the data directory belongs to one npm start", () => {
  it("refuses a second start on the same data directory, naming the running one, which keeps serving", async () => {
    const dataDir = newDataDir();
    const first = await startNpmStart({ dataDir, key: "lifecycle-lock-0123456789abcdef" });

    const second = await startNpmStart({ dataDir, key: "lifecycle-lock-0123456789abcdef", timeoutMs: 30_000 }).then(
      () => undefined,
      (error: Error) => error.message,
    );

    expect(second).toMatch(/exited \(1\) before serving/);
    expect(second).toContain("Another npm start (pid ");
    expect(second).toContain(`serving ${first.url}`);
    expect(second).toContain(dataDir);
    expect(second).not.toContain("DynamoDB Local exited");
    expect((await fetch(`${first.url}/v1/models`, { headers: { authorization: `Bearer ${first.key}` } })).status).toBe(200);
    await first.kill();
  }, 120_000);

  it("takes over the lock a crashed start left, and the CLIs say plainly when the stack is not running", async () => {
    const dataDir = newDataDir();
    const crashed = await startNpmStart({ dataDir, key: "lifecycle-crash-0123456789abcdef" });
    await crashed.kill(); // SIGKILL: local-stack.json and the lock stay behind, naming a dead process.
    expect(existsSync(join(dataDir, STACK_FILE))).toBe(true);

    const stale = await runCli("models", ["list", "--workspace", "ws"], dataDir);
    expect(stale.code).toBe(2);
    expect(stale.output).toContain("The local stack is not running");
    expect(stale.output).not.toMatch(/ECONNREFUSED|\n\s+at /);

    const again = await startNpmStart({ dataDir, key: "lifecycle-crash-0123456789abcdef" });
    expect((await fetch(`${again.url}/v1/models`, { headers: { authorization: `Bearer ${again.key}` } })).status).toBe(200);
    await again.kill();
    rmSync(join(dataDir, STACK_FILE), { force: true });

    const none = await runCli("keys", ["list"], dataDir);
    expect(none.code).toBe(2);
    expect(none.output).toContain("The local stack is not running");
  }, 180_000);
});
