/**
 * `npm start` for a bench or a script: a child process in its own process group, on a free port, with a
 * temporary data directory and a random key; `stop()` ends it and everything it started and removes the directory.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../infra/local/net.js";

const ROOT = resolve(import.meta.dirname, "..");

export interface Target {
  url: string;
  key: string;
  stop(): Promise<void>;
}

export async function startNpmStart(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-"));
  const key = `bench-${randomBytes(16).toString("hex")}`;
  const port = await freePort();
  const child: ChildProcess = spawn(join(ROOT, "node_modules/.bin/tsx"), ["infra/local/start.ts"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PORT: String(port), PLATFORM_DATA_DIR: dataDir, PLATFORM_API_KEY: key, POWERTOOLS_LOG_LEVEL: "ERROR", ACCESS_LOG: "off" },
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((done) => child.once("exit", done));
      process.kill(-child.pid!, "SIGTERM");
      const hard = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 10_000);
      await gone;
      clearTimeout(hard);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const onSignal = () => void stop().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const url = await new Promise<string>((done, fail) => {
    let out = "";
    child.stdout!.on("data", (data: Buffer) => {
      out += String(data);
      // The banner's workspace line comes last: by then the key is usable.
      const found = /Platform API listening on (\S+)/.exec(out)?.[1];
      if (found && /Workspace:\s+\S+/.test(out)) done(found);
    });
    child.once("exit", (code) => fail(new Error(`npm start exited (${code}) before serving:\n${out}`)));
  });
  return { url, key, stop };
}
