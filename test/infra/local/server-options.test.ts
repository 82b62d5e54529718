/** The local server's HOST and access-log settings (npm start's HOST and ACCESS_LOG). */
import { networkInterfaces } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { startApiServer, type RunningApi } from "../../../infra/local/server.js";

let api: RunningApi | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
  vi.restoreAllMocks();
});

const start = (options: { host?: string; accessLog?: boolean }) => startApiServer({ port: 0, authorizerCacheSeconds: 0, rootDir: ROOT_DIR, ...options });

describe("the local server's HOST", () => {
  it("listens on 127.0.0.1 by default", async () => {
    api = await start({});

    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(api.server.address()).toMatchObject({ address: "127.0.0.1" });
  });

  it("listens on every interface for 0.0.0.0, naming the loopback as its URL", async () => {
    api = await start({ host: "0.0.0.0" });

    expect(api.server.address()).toMatchObject({ address: "0.0.0.0" });
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal);
    if (external) {
      const port = new URL(api.url).port;
      expect((await fetch(`http://${external.address}:${port}/no/such/route`)).status).toBe(404);
    }
  });
});

describe("the access log", () => {
  it("writes one line per request: time, method, path without the query, status, latency, request id", async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
    api = await start({ accessLog: true });

    const reply = await fetch(`${api.url}/no/such/route?token=secret`);
    await new Promise((r) => setTimeout(r, 50));

    const requestId = reply.headers.get("x-request-id")!;
    const line = lines.find((l) => l.includes(requestId));
    expect(line).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+ GET /no/such/route 404 \\d+\\.\\dms ${requestId}\\n$`));
    expect(line).not.toContain("secret");
  });

  it("is quiet unless asked for", async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
    api = await start({});

    const reply = await fetch(`${api.url}/no/such/route`);
    await new Promise((r) => setTimeout(r, 50));

    expect(lines.some((l) => l.includes(reply.headers.get("x-request-id")!))).toBe(false);
  });
});
