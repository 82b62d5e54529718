import { describe, expect, it } from "vitest";
import { tenancyStore } from "../../../shared/store/tenancy.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient, type ApiReply } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const files = filesClient(api, tenant);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectUnauthorized(reply: ApiReply): void {
  expect(reply.status).toBe(401);
  expect(reply.headers.get("content-type")).toBe("application/json");
  expect(reply.headers.get("x-request-id")).toMatch(UUID);
  expect(reply.body).toEqual({ object: "error", message: expect.any(String), type: "authentication_error", param: null, code: "unauthorized" });
}

describe("the API key authorizer", () => {
  it("answers 401 with the JSON error body when there is no Authorization header", async () => {
    expectUnauthorized(await files.request("GET", "/v1/files", { key: null }));
  });

  it.each([["Basic dXNlcjpwYXNz"], ["Bearer"], ["Bearer "], ["Bearer short"], [`Token ${"a".repeat(40)}`]])(
    "answers 401 to the malformed header %j",
    async (header) => {
      expectUnauthorized(await files.request("GET", "/v1/files", { key: null, headers: { authorization: header } }));
    },
  );

  it("answers 401 to a well-formed key it does not know", async () => {
    expectUnauthorized(await files.request("GET", "/v1/files", { key: `pak_${"A".repeat(43)}` }));
  });

  it("says nothing about why a key was refused", async () => {
    const missing = await files.request("GET", "/v1/files", { key: null });
    const unknown = await files.request("GET", "/v1/files", { key: `pak_${"B".repeat(43)}` });
    expect(unknown.body).toEqual(missing.body);
  });

  it("lets a valid key through, whatever the case of the scheme", async () => {
    expect((await files.list()).status).toBe(200);
    const lower = await files.request("GET", "/v1/files", { key: null, headers: { authorization: `bearer ${tenant.key}` } });
    expect(lower.status).toBe(200);
  });

  it("answers 401 to a key from its next call after it is revoked", async () => {
    const doomed = await newTenant();
    const client = filesClient(api, doomed);
    expect((await client.list()).status).toBe(200);
    const revoked = await tenancyStore.revokeApiKey(doomed.caller.keyId, new Date().toISOString());
    expect(revoked?.revokedAt).toBeTruthy();
    expectUnauthorized(await client.list());
    // Other keys of the run are unaffected.
    expect((await files.list()).status).toBe(200);
  });

  it("guards every non-public route, including the extension routes", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    for (const [method, path] of [
      ["GET", "/v1/files"],
      ["POST", "/v1/files"],
      ["GET", `/v1/files/${id}`],
      ["DELETE", `/v1/files/${id}`],
      ["GET", `/v1/files/${id}/content`],
      ["GET", `/v1/files/${id}/url`],
      ["POST", "/v1/files/uploads"],
      ["POST", `/v1/files/uploads/${id}/complete`],
    ] as const) {
      const reply = await files.request(method, path, { key: null });
      expect(reply.status, `${method} ${path}`).toBe(401);
    }
  });

  it("does not guard the signed download route, whose token is the credential", async () => {
    const reply = await files.request("GET", "/v1/files/00000000-0000-4000-8000-000000000000/download", { key: null, query: { token: "x.y" } });
    expect(reply.status).toBe(403);
    expect(reply.body.type).toBe("permission_error");
  });
});

describe("routing", () => {
  it("answers 404 route_not_found for an unknown path", async () => {
    const reply = await files.request("GET", "/v1/nothing-here");
    expect(reply.status).toBe(404);
    expect(reply.headers.get("x-request-id")).toMatch(UUID);
    expect(reply.body).toMatchObject({ object: "error", type: "not_found_error", code: "route_not_found" });
  });

  it("answers 405 method_not_allowed with Allow for a known path with a method it does not take", async () => {
    const reply = await files.request("PUT", "/v1/files");
    expect(reply.status).toBe(405);
    expect(reply.headers.get("allow")).toBe("GET, POST");
    expect(reply.body.code).toBe("method_not_allowed");
  });
});

describe("x-request-id", () => {
  it("is on every kind of response, and differs per request", async () => {
    const file = await files.uploaded();
    const replies = [
      await files.list(), // 200 from a handler
      await files.content(file.id), // 302
      await files.retrieve("not-a-uuid"), // 422
      await files.retrieve("00000000-0000-4000-8000-000000000000"), // 404 from a handler
      await files.request("GET", "/v1/files", { key: null }), // 401 from the authorizer
      await files.request("GET", "/v1/unknown"), // 404 from routing
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 302, 422, 404, 401, 404]);
    const ids = replies.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
