/**
 * What the local API Gateway stand-in answers around the routes: 405 with `Allow` for a method a known
 * path does not take, and CORS for browser clients when CORS_ORIGINS allows them (decision 0027).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { CORS_ORIGINS_ENV } from "../../../shared/http/cors.js";
import { useEmbeddedApi } from "../../support/api.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
afterEach(() => vi.unstubAllEnvs());

const APP = "https://app.example.test";

describe("a method a known path does not take", () => {
  it("answers 405 with Allow naming the path's methods, in the platform envelope, before any key is asked for", async () => {
    const response = await fetch(`${api.url}/v1/files`, { method: "PUT" });

    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, POST");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(await response.json()).toMatchObject({ object: "error", type: "invalid_request_error", code: "method_not_allowed" });
  });

  it("goes by the resource API Gateway would pick: GET /v1/files/uploads is a 405 (POST only), not GET /v1/files/{file_id}", async () => {
    const response = await fetch(`${api.url}/v1/files/uploads`, { headers: { authorization: `Bearer ${tenant.key}` } });

    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("takes paths that differ only in a variable's name as one resource: POST /v1/connectors/{id} lists GET, PATCH, DELETE (decision 0032)", async () => {
    const response = await fetch(`${api.url}/v1/connectors/c-1`, { method: "POST", headers: { authorization: `Bearer ${tenant.key}` } });

    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, PATCH, DELETE");
  });

  it("still answers 404 for a path no route has", async () => {
    expect((await fetch(`${api.url}/v1/nothing-here`, { method: "PUT" })).status).toBe(404);
  });
});

describe("CORS", () => {
  it("is off unless configured: no CORS headers, and OPTIONS is a method like another (405)", async () => {
    const response = await fetch(`${api.url}/v1/models`, { headers: { origin: APP, authorization: `Bearer ${tenant.key}` } });
    const preflight = await fetch(`${api.url}/v1/models`, { method: "OPTIONS", headers: { origin: APP, "access-control-request-method": "GET" } });

    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(preflight.status).toBe(405);
  });

  it("answers a preflight for an allowed origin with the path's methods and the headers a client sends", async () => {
    vi.stubEnv(CORS_ORIGINS_ENV, `${APP},http://localhost:3000`);
    const preflight = await fetch(`${api.url}/v1/models/{model_id}`.replace("{model_id}", "m-1"), {
      method: "OPTIONS",
      headers: { origin: APP, "access-control-request-method": "DELETE", "access-control-request-headers": "authorization" },
    });

    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(APP);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, DELETE, OPTIONS");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");
  });

  it("lets an allowed origin read answers, errors and the request id; another origin gets no grant from a handler", async () => {
    vi.stubEnv(CORS_ORIGINS_ENV, APP);
    const allowed = await fetch(`${api.url}/v1/models`, { headers: { origin: APP, authorization: `Bearer ${tenant.key}` } });
    const refused = await fetch(`${api.url}/v1/models`, { headers: { origin: "https://evil.example.test", authorization: `Bearer ${tenant.key}` } });
    const unauthorized = await fetch(`${api.url}/v1/models`, { headers: { origin: APP } });

    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(APP);
    expect(allowed.headers.get("access-control-expose-headers")).toContain("x-request-id");
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("with * lets any origin call, streamed answers included", async () => {
    vi.stubEnv(CORS_ORIGINS_ENV, "*");
    const response = await fetch(`${api.url}/v1/chat/completions`, {
      method: "POST",
      headers: { origin: APP, authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "mistral-small-latest", messages: [{ role: "user", content: "Hi" }], stream: true }),
    });

    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    await response.text();
  });
});
