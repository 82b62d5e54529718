/**
 * The upload service's container entry (functions/upload-service/main.ts, what the image runs) as a process:
 * it listens on PORT, answers the load balancer's health check, refuses what is not its route, refuses a
 * request without a key before reading it, and stops on SIGTERM (ECS's stop signal) with exit code 0.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { until } from "../../support/local-process.js";

let child: ChildProcess;
let url: string;

beforeAll(async () => {
  // As a container has it: without the Lambda concurrency setting that the in-process API (infra/local/invoke-store.ts)
  // leaves in this worker's environment, which tells Powertools to look for a Lambda runtime's InvokeStore.
  const { AWS_LAMBDA_MAX_CONCURRENCY: _lambdaOnly, ...environment } = process.env;
  // PORT=0 and the port read from its "listening" line: a port found free beforehand could be taken by another
  // worker's process before the service binds it.
  child = spawn(process.execPath, ["--import", "tsx", join(ROOT_DIR, "functions/upload-service/main.ts")], {
    cwd: ROOT_DIR,
    env: { ...environment, PORT: "0", POWERTOOLS_LOG_LEVEL: "INFO" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => output.push(String(chunk)));
  child.stderr!.on("data", (chunk: Buffer) => output.push(String(chunk)));
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`the upload service exited (${code})`))));
  const listening = until("the upload service to listen", async () => /"message":\s*"upload service listening"[^}]*?"port":\s*(\d+)/.exec(output.join(""))?.[1], 120_000);
  const port = await Promise.race([listening, exited]).catch((error: Error) => {
    throw new Error(`${error.message}; it printed:\n${output.join("").slice(-2000)}`);
  });
  url = `http://127.0.0.1:${port}`;
}, 150_000);
afterAll(() => {
  if (child.exitCode === null) child.kill("SIGKILL");
});

describe("POST /v1/files on the upload service's container entry", () => {
  it("answers the health check, 404 off its route and 401 without a key", async () => {
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });

    const other = await fetch(`${url}/v1/models`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: "route_not_found" });

    const anonymous = await fetch(`${url}/v1/files`, { method: "POST", body: new FormData() });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ type: "authentication_error" });

    // Its second route, a library's documents: served too (401 without a key), but not the paths below it.
    const document = await fetch(`${url}/v1/libraries/0b5f3c1e-4a8e-4c1a-9d0e-3f1b2c3d4e5f/documents`, { method: "POST", body: new FormData() });
    expect(document.status).toBe(401);
    const below = await fetch(`${url}/v1/libraries/0b5f3c1e-4a8e-4c1a-9d0e-3f1b2c3d4e5f/documents/x`, { method: "POST", body: new FormData() });
    expect(below.status).toBe(404);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
