import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";

const { api, tenant } = useEmbeddedApi();

const get = (path: string, headers: Record<string, string>) => fetch(`${api.url}${path}`, { headers });

describe("GET /v1/users/me with the key as x-api-key, as the official SDK's beta.users sends it", () => {
  it("takes the key from x-api-key when no Authorization header came", async () => {
    const reply = await get("/v1/users/me", { "x-api-key": tenant.key });

    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { api_key: { id: string } }).api_key.id).toBe(tenant.caller.keyId);
  });

  it("never falls back to x-api-key beside an Authorization header (answers are cached by that header)", async () => {
    const reply = await get("/v1/users/me", { authorization: "Bearer not-a-key-at-all", "x-api-key": tenant.key });

    expect(reply.status).toBe(401);
  });

  it("is refused on the rows that do not take it", async () => {
    expect((await get("/v1/files", { "x-api-key": tenant.key })).status).toBe(401);
  });
});
