/**
 * `npm start` as a newcomer meets it: every signal that ends a foreground program stops every child (the node
 * server, DynamoDB Local's java), frees the port and removes local-stack.json; while it runs, nothing it opened
 * listens beyond loopback, and the answered calls' bookkeeping is on disk before it ends. (Refusals, the data directory's lock and a crashed start: npm-start-lifecycle.test.ts.)
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { LOCK_FILE, STACK_FILE } from "../../infra/local/lock.js";
import { canReadSockets, isLoopback, listenersOf } from "../support/listeners.js";
import { startNpmStart, useNpmStartDirs, type StartedProcess } from "../support/local-process.js";

const run = promisify(execFile);

/** The telemetry files under `dir` that hold a line of `trace`, by name. */
const spanFilesHolding = (dir: string, trace: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((name) => name.endsWith(".jsonl") && readFileSync(join(dir, name), "utf8").includes(trace)).map((name) => basename(name));
const { dataDir: newDataDir } = useNpmStartDirs("platform-lifecycle-");

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
    "%s to the npm process stops node and DynamoDB Local, frees the port and removes local-stack.json, once the answered calls are written",
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

      // A model call right before the signal: its span is on disk when npm start has stopped (written by the server, or
      // by the bookkeeping thread the call started: test/infra/local/bookkeeping.test.ts).
      const trace = randomBytes(16).toString("hex");
      const chat = await fetch(`${started.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${started.key}`, "content-type": "application/json", traceparent: `00-${trace}-${randomBytes(8).toString("hex")}-01` },
        body: JSON.stringify({ model: "mistral-small-latest", messages: [{ role: "user", content: "just before the signal" }] }),
      });
      expect(chat.status).toBe(200);

      process.kill(started.pid, signal);

      expect(await until(() => [started.pid, ...children].every((pid) => !alive(pid)), 20_000), started.output()).toBe(true);
      // npm dies of a SIGHUP without passing it on: then node stops because its parent went away.
      expect(started.output()).toMatch(new RegExp(`(${signal}|parent process \\d+ exited): stopping the local stack…\nStopped\.`));
      expect(await portAnswers(started.url)).toBe(false);
      expect(existsSync(join(dataDir, STACK_FILE))).toBe(false);
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
      expect(spanFilesHolding(join(dataDir, "telemetry"), trace)).toStrictEqual([expect.stringMatching(/^\d{10}-\d+(-\d+)?\.jsonl$/)]);
    },
    240_000,
  );
});
