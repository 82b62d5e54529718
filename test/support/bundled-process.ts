import { spawn } from "node:child_process";
import { join } from "node:path";
import { NODE22 } from "../../infra/local/bundled-node.js";
import type { RunningApi } from "../../infra/local/server.js";
import { ROOT_DIR } from "../../infra/local/stack.js";

/**
 * test/support/bundled-api.ts on Node 22 (the Lambda runtime's), serving the bundles in `bundles` against the
 * environment of this test process (the run's backends). `server` is not in this process: tests that need
 * the server object itself are not run bundled.
 */
export async function startBundledApi(bundles: string, options: { authorizerCacheSeconds?: number; env?: Record<string, string> } = {}): Promise<RunningApi & { output(): string }> {
  const child = spawn(NODE22, ["--import", "tsx", join(ROOT_DIR, "test/support/bundled-api.ts")], {
    cwd: ROOT_DIR,
    env: { ...process.env, ...options.env, BUNDLES_DIR: bundles, AUTHORIZER_CACHE_SECONDS: String(options.authorizerCacheSeconds ?? 0) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const chunks: string[] = [];
  const output = () => chunks.join("");
  child.stderr.on("data", (d) => chunks.push(String(d)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d) => {
      chunks.push(String(d));
      const found = /listening (\S+)/.exec(output())?.[1];
      if (found) resolve(found);
    });
    child.once("exit", (code) => reject(new Error(`The bundled API exited (${code}) before serving:\n${output()}`)));
  });
  const stopped = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    server: undefined as never,
    output,
    stop: async () => {
      child.kill("SIGTERM");
      await stopped;
    },
  };
}
