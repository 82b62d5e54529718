import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../../shared/domain/api-keys.js";
import { tenancyStore } from "../../../shared/store/tenancy.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";
import { withKey } from "./http.js";

const { api, tenant } = useEmbeddedApi();
const admin = withKey(api, () => tenant.key);

async function anAccount(roles: string[] = []) {
  const account = (await admin("POST", "/v1/service-accounts", { name: "ci", workspace_id: tenant.caller.workspace })).body;
  if (roles.length) await admin("PUT", `/v1/service-accounts/${account.id}/roles`, { role_ids: roles });
  return account as { id: string; workspace_id: string };
}

const newKey = async (accountId: string, name?: string) => (await admin("POST", `/v1/service-accounts/${accountId}/keys`, name ? { name } : {})).body as { id: string; key: string };

describe("POST /v1/service-accounts/{service_account_id}/keys", () => {
  it("answers 201 with the key once; only its hash is stored, under the account as principal", async () => {
    const account = await anAccount();

    const answer = await admin("POST", `/v1/service-accounts/${account.id}/keys`, { name: "deploy" });

    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ object: "api_key", name: "deploy", service_account_id: account.id, workspace_id: account.workspace_id, revoked_at: null, key: expect.stringMatching(/^pak_/) });
    const stored = await tenancyStore.getApiKeyByHash(hashApiKey(answer.body.key));
    expect(stored).toMatchObject({ keyId: answer.body.id, principal: account.id, principalType: "service_account" });
    expect(JSON.stringify(stored)).not.toContain(answer.body.key);
  });

  it("answers 404 to another organization's admin", async () => {
    const account = await anAccount();
    const stranger = await newTenant();

    expect((await withKey(api, () => stranger.key)("POST", `/v1/service-accounts/${account.id}/keys`, {})).status).toBe(404);
  });
});

describe("GET /v1/service-accounts/{service_account_id}/keys", () => {
  it("lists the account's keys as previews, never the key", async () => {
    const account = await anAccount();
    const { id, key } = await newKey(account.id, "deploy");

    const answer = await admin("GET", `/v1/service-accounts/${account.id}/keys`);

    expect(answer.status).toBe(200);
    expect(answer.body.items).toEqual([expect.objectContaining({ id, name: "deploy", preview: `${key.slice(0, 8)}…`, revoked_at: null })]);
    expect(JSON.stringify(answer.body)).not.toContain(key);
  });
});

describe("DELETE /v1/service-accounts/{service_account_id}/keys/{key_id}", () => {
  it("answers 204; the key then answers 401", async () => {
    const account = await anAccount(["workspace_contributor"]);
    const { id, key } = await newKey(account.id);
    const files = filesClient(api, { key });
    expect((await files.list()).status).toBe(200);

    expect((await admin("DELETE", `/v1/service-accounts/${account.id}/keys/${id}`)).status).toBe(204);

    expect((await files.list()).status).toBe(401);
    expect((await admin("GET", `/v1/service-accounts/${account.id}/keys`)).body.items[0].revoked_at).toMatch(/Z$/);
  });
});

describe("a service account's key, end to end", () => {
  it("acts with the account's roles, follows a role change, and stops working when the account is deleted", async () => {
    const account = await anAccount(["observability_viewer"]);
    const { key } = await newKey(account.id);
    const files = filesClient(api, { key });

    const refused = await files.upload({ filename: "data.jsonl" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: "permission_error", code: "missing_permission" });

    expect((await admin("PUT", `/v1/service-accounts/${account.id}/roles`, { role_ids: ["workspace_contributor"] })).status).toBe(200);
    const uploaded = await files.upload({ filename: "data.jsonl" });
    expect(uploaded.status).toBe(200);
    expect((await files.list()).body.data.map((f: { id: string }) => f.id)).toContain(uploaded.body.id);
    // A contributor manages no service accounts.
    expect((await withKey(api, () => key)("GET", "/v1/service-accounts")).status).toBe(403);

    expect((await admin("DELETE", `/v1/service-accounts/${account.id}`)).status).toBe(204);
    expect((await files.list()).status).toBe(401);
  });
});
