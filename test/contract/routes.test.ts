/**
 * The contract every route keeps, generated from the route table: a new row is covered the day it lands.
 * Requests go through the local API Gateway stand-in (authorizer, handler chain, embedded backends).
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { routes, type RouteRow } from "../../functions/routes.js";
import type { RunningApi } from "../../infra/local/server.js";
import { ROOT_DIR } from "../../infra/local/stack.js";
import { routeKey } from "../../shared/http/policy.js";
import { startTestApi } from "../support/api.js";
import { envelopeProblem, specOf, type Answer } from "../support/envelopes.js";
import { newTenant, type TestTenant } from "../support/tenant.js";

let api: RunningApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await newTenant();
});
afterAll(() => api.stop());

const title = (row: RouteRow) => routeKey(row);
const keyed = routes.filter((row) => row.auth !== "public");

async function call(row: RouteRow, options: { key?: string; path?: string; query?: string; contentType?: string; body?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.contentType) headers["content-type"] = options.contentType;
  const response = await fetch(`${api.url}${options.path ?? pathWith(row, () => randomUUID())}${options.query ?? ""}`, {
    method: row.method,
    headers,
    body: options.body,
  });
  const text = await response.text();
  const json = (response.headers.get("content-type") ?? "").includes("json") && text ? JSON.parse(text) : text;
  return { status: response.status, requestId: response.headers.get("x-request-id"), body: json };
}

/** The row's path with each parameter filled in (`version` takes a number). */
const pathWith = (row: RouteRow, id: () => string) =>
  row.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => (name === "version" ? "1" : encodeURIComponent(id())));

const spec = specOf;

function expectInFamily(row: RouteRow, answer: Answer): void {
  expect(envelopeProblem(row, answer)).toBeUndefined();
}

describe.concurrent.each(keyed.map((row) => [title(row), row] as const))("%s", (_, row) => {
  it("refuses a request without a key with 401 and a request id", async () => {
    const answer = await call(row);

    expect(answer.status).toBe(401);
    expect(answer.requestId).toBeTruthy();
  });
});

describe.concurrent.each(routes.filter((row) => row.path.includes("{")).map((row) => [title(row), row] as const))("%s", (_, row) => {
  it("answers ids it does not know with a 4xx in its family's envelope", async () => {
    const answer = await call(row, { key: tenant.key });

    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expectInFamily(row, answer);
  });
});

/** A request the row's declared schemas refuse: a body of the wrong shape, or a query value of the wrong type. */
async function invalidRequest(row: RouteRow): Promise<Parameters<typeof call>[1] | undefined> {
  const declared = await spec(row);
  if (declared.parser) return declared.parser.unreadable ?? { contentType: "multipart/form-data; boundary=contract", body: "--contract--\r\n" };
  if (declared.body) return { contentType: "application/json", body: "42" };
  if (!declared.query) return undefined;
  const schema = z.toJSONSchema(declared.query, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, { type?: string; enum?: unknown[] }> };
  const typed = Object.entries(schema.properties ?? {}).find(([, p]) => p.enum || p.type === "integer" || p.type === "number" || p.type === "boolean");
  return typed ? { query: `?${typed[0]}=%00not-a-${typed[1].type ?? "member"}` } : undefined;
}

describe.concurrent.each(routes.map((row) => [title(row), row] as const))("%s", (_, row) => {
  it("answers input its schemas refuse with 422 in its family's envelope (or declares nothing to refuse)", async () => {
    const request = await invalidRequest(row);
    if (!request) {
      expect(await spec(row)).not.toHaveProperty("body");
      return;
    }
    const answer = await call(row, { key: row.auth === "public" ? undefined : tenant.key, path: pathWith(row, () => randomUUID()), ...request });

    expect(answer.status).toBe(422);
    expectInFamily(row, answer);
  });
});

/** Test files under a folder whose text names the row as "METHOD path" (a describe title, usually). */
function filesNaming(row: RouteRow, ...folders: string[]): string[] {
  const named = new RegExp(`${routeKey(row).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(?![\\w/{}-]|\\.\\w)`);
  return folders.flatMap((folder) => textsUnder(folder)).filter(([, text]) => named.test(text)).map(([file]) => file);
}

/** Each folder's test files and their text, read once for all rows (207 rows read ~300 files each otherwise). */
const texts = new Map<string, [string, string][]>();
function textsUnder(folder: string): [string, string][] {
  if (!texts.has(folder)) texts.set(folder, testFiles(join(ROOT_DIR, "test", folder)).map((file) => [file, readFileSync(file, "utf8")]));
  return texts.get(folder)!;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? testFiles(path) : name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("every row is tested", () => {
  it.each(routes.map((row) => [title(row), row] as const))("%s has a handler test and an integration test", (_, row) => {
    expect(filesNaming(row, "handlers"), "a handler test (aws-sdk-client-mock) naming the route").not.toHaveLength(0);
    expect(filesNaming(row, "integration", "sdk"), "an integration or SDK test naming the route").not.toHaveLength(0);
  });
});
