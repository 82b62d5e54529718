import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { areaOf, handlerModule, routes } from "../../functions/routes.js";
import { ROOT_DIR } from "../../infra/local/stack.js";

const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}");

describe("the route table", () => {
  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))("%s has a handler module that exports handler", async (_, row) => {
    const file = join(ROOT_DIR, handlerModule(row.handler));
    expect(existsSync(file)).toBe(true);
    const module = await import(file);
    expect(typeof module.handler).toBe("function");
  });

  it("has no two rows for the same method and path shape", () => {
    const keys = routes.map((r) => `${r.method} ${shape(r.path)}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("uses one handler module per operation", () => {
    const handlers = routes.map((r) => r.handler);
    expect(new Set(handlers).size).toBe(handlers.length);
  });

  it("writes every path as the spec does: absolute, versioned, snake_case parameters (the reference, the console, the health probe and the OTLP ingest at the root, where clients and people look for them)", () => {
    const atRoot = (r: (typeof routes)[number]) => ["docs", "console", "health"].includes(areaOf(r)) || r.path.startsWith("/telemetry/");
    const reference = routes.filter(atRoot);
    expect(reference.map((r) => `${r.method} ${r.path}`).toSorted()).toEqual(["GET /console", "GET /console/{asset}", "GET /docs", "GET /health", "GET /openapi.json", "POST /telemetry/v1/logs", "POST /telemetry/v1/traces"]);
    for (const row of routes.filter((r) => !reference.includes(r))) expect(row.path).toMatch(/^\/v[12](\/([a-z0-9_.-]+|\{[a-z_]+\}))+$/);
  });

  it("leaves only extension routes unauthenticated", () => {
    for (const row of routes.filter((r) => r.auth === "public")) expect(row.extension).toBe(true);
  });
});
