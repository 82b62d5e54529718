/**
 * The upload service's container entry (functions/upload-service/main.ts, what the image runs) as a process:
 * it listens on PORT, answers the load balancer's health check, refuses what is not its route, refuses a
 * request without a key before reading it, and stops on SIGTERM (ECS's stop signal) with exit code 0.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../infra/local/net.js";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { until } from "../../support/local-process.js";

let child: ChildProcess;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ["--import", "tsx", join(ROOT_DIR, "functions/upload-service/main.ts")], {
    cwd: ROOT_DIR,
    env: { ...process.env, PORT: String(port), POWERTOOLS_LOG_LEVEL: "SILENT" },
    stdio: "ignore",
  });
  await until("the upload service to listen", async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 30_000);
}, 40_000);
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
  });

  it("stops on SIGTERM with exit code 0", async () => {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
