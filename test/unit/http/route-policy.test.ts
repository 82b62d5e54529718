import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { NotFound } from "../../../shared/domain/errors.js";
import { routeKey, ROUTE_KEY_ENV, type RoutePolicy } from "../../../shared/http/policy.js";
import { routeFactory } from "../../../shared/http/route.js";
import { rowByKey, rowFor } from "../../../functions/routes.js";
import { aCaller, aJsonEvent, anEvent, invoke, invokeStream } from "../../support/builders.js";

const aRow = (overrides: Partial<RoutePolicy> = {}): RoutePolicy => ({ method: "POST", path: "/v1/things", auth: "key", errors: "platform", streaming: false, ...overrides });

/** A route bound to a table of exactly these rows. */
function routeOver(...rows: RoutePolicy[]) {
  const byKey = new Map(rows.map((row) => [routeKey(row), row]));
  return routeFactory({ byRequest: (method, resource) => byKey.get(`${method} ${resource}`), byKey: (key) => byKey.get(key) });
}

const Body = z.strictObject({ name: z.string() });
const thing = (row: RoutePolicy, body: unknown, caller = aCaller()) => aJsonEvent(body, { method: row.method, path: row.path, resource: row.path, caller });

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the handler chain reads its row", () => {
  it("lets any key call a key row and refuses a non-admin key on an admin row with 403 before the handler runs", async () => {
    const keyRow = aRow();
    const adminRow = aRow({ path: "/v1/admin/things", auth: "admin" });
    const work = vi.fn(async () => ({ ok: true }));
    const handler = routeOver(keyRow, adminRow)({ body: Body }, work);

    expect((await invoke(handler, thing(keyRow, { name: "a" }))).statusCode).toBe(200);
    const refused = await invoke(handler, thing(adminRow, { name: "a" }));
    expect(refused.statusCode).toBe(403);
    expect(refused.json).toStrictEqual({ object: "error", message: "This route needs an admin API key", type: "permission_error", param: null, code: "admin_required" });
    expect(work).toHaveBeenCalledTimes(1);
    expect((await invoke(handler, thing(adminRow, { name: "a" }, aCaller({ admin: true })))).statusCode).toBe(200);
  });

  it("gives public rows no caller and asks for none", async () => {
    const row = aRow({ method: "GET", auth: "public" });
    const handler = routeOver(row)({}, async ({ caller }) => ({ hasCaller: caller !== undefined }));

    const response = await invoke(handler, anEvent({ method: "GET", path: row.path, resource: row.path, caller: null }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ hasCaller: false });
  });

  it("answers 401 on a key row without the authorizer's context", async () => {
    const row = aRow({ method: "GET" });
    const handler = routeOver(row)({}, async () => ({}));

    expect((await invoke(handler, anEvent({ method: "GET", path: row.path, resource: row.path, caller: null }))).statusCode).toBe(401);
  });

  it("hands the handler its row's METHOD path", async () => {
    const row = aRow();
    const handler = routeOver(row)({ body: Body }, async ({ route }) => ({ route }));

    expect((await invoke(handler, thing(row, { name: "a" }))).json).toStrictEqual({ route: "POST /v1/things" });
  });

  it("streams on a streaming row, and the same handler answers buffered on another", async () => {
    const streamed = aRow({ path: "/v1/things/stream", streaming: true });
    const buffered = aRow();
    const handler = routeOver(streamed, buffered)({ body: Body }, async () => ({ ok: true }));

    const stream = await invokeStream(handler, thing(streamed, { name: "a" }));
    expect(stream.metadata?.statusCode).toBe(200);
    expect(stream.json).toStrictEqual({ ok: true });
    expect((await invoke(handler, thing(buffered, { name: "a" }))).json).toStrictEqual({ ok: true });
  });

  it("serves the row its ROUTE_KEY names when deployed, whatever the event says", async () => {
    const row = aRow({ errors: "observability" });
    vi.stubEnv(ROUTE_KEY_ENV, routeKey(row));
    const handler = routeOver(row)({ body: Body }, async () => {
      throw new NotFound("thing", "t-1");
    });

    const response = await invoke(handler, thing(aRow({ path: "/v1/elsewhere" }), { name: "a" }));

    expect(response.json).toStrictEqual({ detail: { message: "No thing with id 't-1' exists in this workspace", error_code: "UNKNOWN_ERROR" } });
  });

  it("refuses to build for a ROUTE_KEY that names no row", () => {
    vi.stubEnv(ROUTE_KEY_ENV, "GET /v1/nowhere");

    expect(() => routeOver(aRow())({}, async () => ({}))).toThrow(/names no row/);
  });

  it("answers 403 before the handler runs when none of the caller's roles grants the row's permission", async () => {
    const row = aRow({ permission: "agents:write" });
    const work = vi.fn(async () => ({ ok: true }));
    const handler = routeOver(row)({ body: Body }, work);

    const refused = await invoke(handler, thing(row, { name: "a" }, aCaller({ roles: ["observability_viewer", "workflow_executor"] })));
    expect(refused.statusCode).toBe(403);
    expect(refused.json).toMatchObject({ type: "permission_error", code: "missing_permission" });
    expect(work).not.toHaveBeenCalled();

    expect((await invoke(handler, thing(row, { name: "a" }, aCaller({ roles: ["workspace_contributor"] })))).statusCode).toBe(200);
    expect((await invoke(handler, thing(row, { name: "a" }, aCaller({ roles: [], admin: true })))).statusCode).toBe(200);
  });

  it("answers a missing permission on an observability row as AUTH_FORBIDDEN", async () => {
    const row = aRow({ permission: "observability:read", errors: "observability" });
    const handler = routeOver(row)({ body: Body }, async () => ({}));

    const refused = await invoke(handler, thing(row, { name: "a" }, aCaller({ roles: ["billing"] })));

    expect(refused.statusCode).toBe(403);
    expect(refused.json).toStrictEqual({ detail: { message: expect.any(String), error_code: "AUTH_FORBIDDEN" } });
  });
});

describe("path parameters: API Gateway's one name per level, the row's names for the handler (decision 0032)", () => {
  const route = routeFactory({ byRequest: rowFor, byKey: rowByKey });
  const admin = aCaller({ roles: [], admin: true });
  const echo = <P extends z.ZodType>(params: P) => route({ params }, async ({ params: parsed, event }) => ({ params: parsed, pathParameters: event.pathParameters, resource: event.resource }));

  it("finds the row by the resource path and renames its parameters to the row's by position", async () => {
    const handler = echo(z.object({ connector_id_or_name: z.string() }));

    const response = await invoke(handler, anEvent({ method: "GET", path: "/v1/connectors/c-1", resource: "/v1/connectors/{connector_id}", pathParameters: { connector_id: "c-1" }, caller: admin }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      params: { connector_id_or_name: "c-1" },
      pathParameters: { connector_id_or_name: "c-1" },
      resource: "/v1/connectors/{connector_id_or_name}",
    });
  });

  it("renames on a deployed function too, whose row its ROUTE_KEY names", async () => {
    vi.stubEnv(ROUTE_KEY_ENV, "GET /v1/workflows/{workflow_name}/metrics");
    const handler = echo(z.object({ workflow_name: z.string() }));

    const response = await invoke(handler, anEvent({ method: "GET", path: "/v1/workflows/w-1/metrics", resource: "/v1/workflows/{workflow_identifier}/metrics", pathParameters: { workflow_identifier: "w-1" }, caller: admin }));

    expect(response.json).toMatchObject({ params: { workflow_name: "w-1" }, resource: "/v1/workflows/{workflow_name}/metrics" });
  });

  it("gets from the test builder the event API Gateway sends (resource path, its names), and hands the handler the row's", async () => {
    const event = anEvent({ method: "GET", path: "/v1/workflows/deployments/d-1/workers", pathParameters: { name: "d-1" }, caller: admin });
    expect(event).toMatchObject({ resource: "/v1/workflows/deployments/{deployment_id}/workers", pathParameters: { deployment_id: "d-1" } });

    const response = await invoke(echo(z.object({ name: z.string() })), event);

    expect(response.json).toStrictEqual({ params: { name: "d-1" }, pathParameters: { name: "d-1" }, resource: "/v1/workflows/deployments/{name}/workers" });
  });
});

describe("errors in the row's family", () => {
  const failing = (row: RoutePolicy) =>
    routeOver(row)({ body: Body }, async () => {
      throw new NotFound("execution", "e-1");
    });

  it.each([
    ["platform", { object: "error", message: "No execution with id 'e-1' exists in this workspace", type: "not_found_error", param: null, code: "execution_not_found" }],
    ["workflow", { detail: "No execution with id 'e-1' exists in this workspace", code: "WF_1100" }],
    ["observability", { detail: { message: "No execution with id 'e-1' exists in this workspace", error_code: "UNKNOWN_ERROR" } }],
  ] as const)("renders a 404 on a %s row in its envelope", async (errors, body) => {
    const row = aRow({ errors });

    const response = await invoke(failing(row), thing(row, { name: "a" }));

    expect(response.statusCode).toBe(404);
    expect(response.headers?.["x-request-id"]).toBeTruthy();
    expect(response.json).toStrictEqual(body);
  });

  it.each([
    ["platform", { detail: [{ loc: ["body", "name"], msg: "Field required", type: "missing" }] }],
    ["workflow", { detail: [{ loc: ["body", "name"], msg: "Field required", type: "missing" }], code: "WF_1001" }],
    ["observability", { detail: { message: "body.name: Field required", error_code: "VALIDATION_ERROR" } }],
  ] as const)("renders a validation failure on a %s row as its 422", async (errors, body) => {
    const row = aRow({ errors });

    const response = await invoke(failing(row), thing(row, {}));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual(body);
  });

  it.each(["platform", "workflow", "observability"] as const)("says nothing of an unexpected failure on a %s row", async (errors) => {
    const row = aRow({ errors });
    const handler = routeOver(row)({ body: Body }, async () => {
      throw new Error("connect ECONNREFUSED 10.0.0.7:8000 table platform-secret");
    });

    const response = await invoke(handler, thing(row, { name: "a" }));

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toMatch(/ECONNREFUSED|10\.0\.0\.7|platform-secret/);
  });
});
