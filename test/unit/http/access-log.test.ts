/**
 * The access line every request leaves (docs/operations.md "Logs"): one structured `request` line with the
 * request id, route, workspace, status and latency, on success and on error; the request's keys on the lines
 * logged while it runs, gone after it; never its body, query or headers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { routeKey, type RoutePolicy } from "../../../shared/http/policy.js";
import type { routeFactory as RouteFactory } from "../../../shared/http/route.js";
import type { logger as Logger } from "../../../shared/observability/logger.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";

const row: RoutePolicy = { method: "POST", path: "/v1/things", auth: "key", errors: "platform", streaming: false };
const Body = z.strictObject({ name: z.string() });
let logger: typeof Logger;
let route: ReturnType<typeof RouteFactory>;

let lines: Record<string, unknown>[];
beforeEach(async () => {
  // A logger built at INFO (the tests' own level is quieter, and Powertools goes back to its initial level on each warm invocation).
  vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
  vi.resetModules();
  ({ logger } = await import("../../../shared/observability/logger.js"));
  const { routeFactory } = await import("../../../shared/http/route.js");
  route = routeFactory({ byRequest: () => row, byKey: () => row });
  lines = [];
  const capture = (chunk: unknown) => {
    for (const text of String(chunk).split(/\n(?=\{)/)) if (text.trim().startsWith("{")) lines.push(JSON.parse(text));
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(capture as never);
  vi.spyOn(console, "info").mockImplementation(capture);
  vi.spyOn(console, "log").mockImplementation(capture);
  vi.spyOn(console, "warn").mockImplementation(capture);
  vi.spyOn(console, "error").mockImplementation(capture);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const event = (body: unknown, caller = aCaller()) => aJsonEvent(body, { method: "POST", path: "/v1/things", resource: "/v1/things", caller, query: { token: "secret-query" } });

describe("the access line of " + routeKey(row), () => {
  it("is one structured line with request id, route, workspace, status and latency; the handler's own lines carry the same keys", async () => {
    const caller = aCaller();
    const handler = route({ body: Body }, async ({ body }) => {
      logger.info("working on it");
      return { hello: body.name };
    });
    const sent = event({ name: "PRIVATE-PROMPT" }, caller);

    expect((await invoke(handler, sent)).statusCode).toBe(200);

    const access = lines.filter((l) => l.message === "request");
    expect(access).toEqual([expect.objectContaining({ level: "INFO", requestId: sent.requestContext.requestId, route: "POST /v1/things", workspace: caller.workspace, status: 200, latencyMs: expect.any(Number) })]);
    expect(lines.find((l) => l.message === "working on it")).toMatchObject({ requestId: sent.requestContext.requestId, route: "POST /v1/things", workspace: caller.workspace });
    expect(JSON.stringify(lines)).not.toMatch(/PRIVATE-PROMPT|secret-query|Bearer/);
  });

  it("carries its area's latency and 5xx as embedded metrics in the cloud (namespace and area set), none locally", async () => {
    const handler = route({ body: Body }, async () => {
      throw new Error("broken");
    });
    await invoke(handler, event({ name: "local" }));
    vi.stubEnv("SIGNALS_NAMESPACE", "Platform-test/Signals");
    vi.stubEnv("SIGNALS_AREA", "things");

    expect((await invoke(handler, event({ name: "cloud" }))).statusCode).toBe(500);

    const [local, cloud] = lines.filter((l) => l.message === "request");
    expect(local).not.toHaveProperty("_aws");
    expect(cloud).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: "Platform-test/Signals", Dimensions: [["area"]] }] },
      area: "things",
      status: 500,
      Latency: cloud!.latencyMs,
      ServerErrors: 1,
    });
  });

  it("is written for refused and failed requests too, with their status", async () => {
    // From the same module graph as the chain (reset per test), so the chain knows it for a 404.
    const { NotFound } = await import("../../../shared/domain/errors.js");
    const handler = route({ body: Body }, async () => {
      throw new NotFound("thing", "t1");
    });

    expect((await invoke(handler, event({ name: "x" }))).statusCode).toBe(404);
    expect((await invoke(handler, event({ wrong: "PRIVATE-FIELD" }))).statusCode).toBe(422);

    expect(lines.filter((l) => l.message === "request").map((l) => l.status)).toEqual([404, 422]);
    expect(JSON.stringify(lines)).not.toContain("PRIVATE-FIELD");
  });

  it("leaves no key of one request on the next one's lines", async () => {
    const handler = route({ body: Body }, async () => ({}));
    const first = event({ name: "a" }, aCaller({ workspace: "ws-first" }));
    await invoke(handler, first);
    logger.info("between requests");

    expect(lines.find((l) => l.message === "between requests")).not.toHaveProperty("workspace");
    expect(lines.find((l) => l.message === "between requests")).not.toHaveProperty("requestId");
  });
});
