/**
 * Per-key limits end to end (docs/routing.md, "Per-key limits"): a key limited to some models, and a key that
 * expires, against the embedded API's authorizer and model routes.
 */
import { describe, expect, it } from "vitest";
import { createApiKey, type KeyLimits } from "../../../shared/services/tenancy/tenants.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { userSays } from "../../support/inference-client.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });

/** A key of the file's workspace with these limits. */
async function aKeyWith(limits: KeyLimits): Promise<string> {
  const { key } = await createApiKey({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, name: "limited", admin: false, roles: ["workspace_contributor"], ...limits });
  return key;
}

const as = (key: string) => filesClient(api, { key });

describe("a key limited to some models", () => {
  it("calls the models it lists, by id or by alias, and is refused any other with 403 model_not_allowed", async () => {
    const key = await aKeyWith({ models: ["mistral-small-latest", "mistral-embed"] });

    const allowed = await as(key).request("POST", "/v1/chat/completions", { json: userSays("mistral-small-latest", "hi") });
    const byAlias = await as(key).request("POST", "/v1/chat/completions", { json: userSays("mistral-small-2506", "hi") });
    const embeddings = await as(key).request("POST", "/v1/embeddings", { json: { model: "mistral-embed", input: ["hi"] } });
    const refused = await as(key).request("POST", "/v1/chat/completions", { json: userSays("mistral-large-latest", "hi") });

    expect([allowed.status, byAlias.status, embeddings.status]).toStrictEqual([200, 200, 200]);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "model_not_allowed" });
    expect(refused.body.message).toContain("mistral-small-latest, mistral-embed");
  });

  it("leaves every other key of the workspace free to call any model", async () => {
    const reply = await as(tenant.key).request("POST", "/v1/chat/completions", { json: userSays("mistral-large-latest", "hi") });

    expect(reply.status).toBe(200);
  });
});

describe("a key that expires", () => {
  it("works before its time and is refused with 401 after it, as a revoked key", async () => {
    const live = await aKeyWith({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const gone = await aKeyWith({ expiresAt: new Date(Date.now() - 1_000).toISOString() });

    expect((await as(live).request("GET", "/v1/models")).status).toBe(200);
    const refused = await as(gone).request("GET", "/v1/models");
    expect(refused.status).toBe(401);
  });
});
