import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { identityStore } from "../../../shared/store/identity.js";
import { createApiKey, createWorkspace } from "../../../shared/services/tenancy/tenants.js";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { withKey } from "./http.js";

const { api, tenant } = useEmbeddedApi();
/** The tenant's key: an organization admin's. */
const admin = withKey(api, () => tenant.key);

/** A key holding only workspace_admin in the tenant's workspace. */
async function workspaceAdmin() {
  const { key } = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["workspace_admin"] });
  return withKey(api, () => key);
}

const created = async (name = "ci", workspace = tenant.caller.workspace) => (await admin("POST", "/v1/service-accounts", { name, workspace_id: workspace })).body;

describe("POST /v1/service-accounts", () => {
  it("answers 201 with the account in its workspace, the organization as its customer", async () => {
    const answer = await admin("POST", "/v1/service-accounts", { name: "ci", workspace_id: tenant.caller.workspace, description: "deploys" });

    expect(answer.status).toBe(201);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.body).toStrictEqual({
      id: expect.any(String),
      name: "ci",
      customer_id: tenant.caller.organization,
      organization_id: tenant.caller.organization,
      workspace_id: tenant.caller.workspace,
      description: "deploys",
      created_at: expect.stringMatching(/Z$/),
      updated_at: answer.body.created_at,
      deleted_at: null,
    });
  });

  it("refuses a workspace admin in a workspace it does not administer (403), and a workspace of another organization (404)", async () => {
    const other = await createWorkspace(tenant.caller.organization, "other");
    const stranger = await newTenant();
    const call = await workspaceAdmin();

    expect((await call("POST", "/v1/service-accounts", { name: "ci", workspace_id: other.id })).status).toBe(403);
    expect((await admin("POST", "/v1/service-accounts", { name: "ci", workspace_id: stranger.caller.workspace })).status).toBe(404);
  });

  it("lets a user create in another workspace where its membership holds workspace_admin", async () => {
    const other = await createWorkspace(tenant.caller.organization, "other");
    const user = randomUUID();
    const at = new Date().toISOString();
    await identityStore.createUser({ id: user, organization: tenant.caller.organization, email: `${user}@example.test`, firstName: null, lastName: null, organizationRoles: ["member"], createdAt: at });
    await identityStore.putMembership({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, user, roles: ["workspace_admin"], addedAt: at, updatedAt: at }, { replace: false });
    await identityStore.putMembership({ organization: tenant.caller.organization, workspace: other.id, user, roles: ["workspace_admin"], addedAt: at, updatedAt: at }, { replace: false });
    const { key } = await createApiKey({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, name: "user", admin: false, principal: { id: user, type: "user" } });

    const answer = await withKey(api, () => key)("POST", "/v1/service-accounts", { name: "ci", workspace_id: other.id });

    expect(answer.status).toBe(201);
    expect(answer.body.workspace_id).toBe(other.id);
  });
});

describe("GET /v1/service-accounts", () => {
  it("pages a workspace's live accounts by offset and limit, oldest first", async () => {
    const [a, b, c] = [await created("a"), await created("b"), await created("c")];
    const page = (offset: number) => admin("GET", `/v1/service-accounts?workspace_id=${tenant.caller.workspace}&offset=${offset}&limit=2&include_deleted=false`);

    expect((await page(0)).body.items.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
    expect((await page(2)).body.items.map((x: { id: string }) => x.id)).toEqual([c.id]);
  });

  it("hides deleted accounts unless include_deleted", async () => {
    const kept = await created("kept");
    const gone = await created("gone");
    await admin("DELETE", `/v1/service-accounts/${gone.id}`);

    expect((await admin("GET", "/v1/service-accounts")).body.items.map((x: { id: string }) => x.id)).toEqual([kept.id]);
    const all = (await admin("GET", "/v1/service-accounts?include_deleted=true")).body.items;
    expect(all.map((x: { id: string }) => x.id)).toEqual([kept.id, gone.id]);
    expect(all[1].deleted_at).toMatch(/Z$/);
  });

  it("without a workspace: the whole organization for an organization admin, the key's workspace for a workspace admin", async () => {
    const other = await createWorkspace(tenant.caller.organization, "other");
    const mine = await created("mine");
    const theirs = await created("theirs", other.id);
    const call = await workspaceAdmin();

    expect((await admin("GET", "/v1/service-accounts")).body.items.map((x: { id: string }) => x.id)).toEqual([mine.id, theirs.id]);
    expect((await call("GET", "/v1/service-accounts")).body.items.map((x: { id: string }) => x.id)).toEqual([mine.id]);
    expect((await call("GET", `/v1/service-accounts?workspace_id=${other.id}`)).status).toBe(403);
  });
});

describe("GET /v1/service-accounts/{service_account_id}", () => {
  it("answers the account, and 404 to another organization", async () => {
    const account = await created();

    expect((await admin("GET", `/v1/service-accounts/${account.id}`)).body).toStrictEqual(account);
    expect((await withKey(api, () => "")("GET", `/v1/service-accounts/${account.id}`)).status).toBe(401);
    const stranger = await newTenant();
    expect((await withKey(api, () => stranger.key)("GET", `/v1/service-accounts/${account.id}`)).status).toBe(404);
  });
});

describe("PATCH /v1/service-accounts/{service_account_id}", () => {
  it("changes the description", async () => {
    const account = await created();

    const answer = await admin("PATCH", `/v1/service-accounts/${account.id}`, { description: "builds" });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: account.id, description: "builds", name: "ci" });
    expect(answer.body.updated_at >= account.updated_at).toBe(true);
  });
});

describe("DELETE /v1/service-accounts/{service_account_id}", () => {
  it("answers 204, keeps the account readable with deleted_at, and refuses later changes with 409", async () => {
    const account = await created();

    const answer = await admin("DELETE", `/v1/service-accounts/${account.id}`);

    expect(answer.status).toBe(204);
    expect(answer.body).toBe("");
    expect((await admin("GET", `/v1/service-accounts/${account.id}`)).body.deleted_at).toMatch(/Z$/);
    expect((await admin("PATCH", `/v1/service-accounts/${account.id}`, { description: "x" })).status).toBe(409);
    expect((await admin("DELETE", `/v1/service-accounts/${account.id}`)).status).toBe(409);
  });
});

describe("GET /v1/service-accounts/{service_account_id}/roles", () => {
  it("answers no roles for a new account", async () => {
    const account = await created();

    expect((await admin("GET", `/v1/service-accounts/${account.id}/roles`)).body).toStrictEqual({ items: [] });
  });
});

describe("PUT /v1/service-accounts/{service_account_id}/roles", () => {
  it("replaces the roles, from names, codes or UUIDs, answered and listed as static UUIDs", async () => {
    const account = await created();

    const answer = await admin("PUT", `/v1/service-accounts/${account.id}/roles`, { role_ids: ["A", "observability_viewer"] });

    const expected = { items: [{ role_id: "731eb2be-a74f-4070-b797-35bf7009e553" }, { role_id: "ff86d432-7f27-47f8-b02f-b5c102ef6a55" }] };
    expect(answer.status).toBe(200);
    expect(answer.body).toStrictEqual(expected);
    expect((await admin("GET", `/v1/service-accounts/${account.id}/roles`)).body).toStrictEqual(expected);
  });

  it("answers 422 for an unknown role", async () => {
    const account = await created();

    const answer = await admin("PUT", `/v1/service-accounts/${account.id}/roles`, { role_ids: ["superuser"] });

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(["body", "role_ids", 0]);
  });
});

describe("GET /v1/service-accounts/assignable-roles", () => {
  it("answers the workspace roles, and 403 to a workspace admin of another workspace", async () => {
    const other = await createWorkspace(tenant.caller.organization, "other");

    const answer = await admin("GET", `/v1/service-accounts/assignable-roles?workspace_id=${tenant.caller.workspace}`);

    expect(answer.status).toBe(200);
    expect(answer.body.items.map((r: { name: string }) => r.name)).toContain("workspace_admin");
    expect((await (await workspaceAdmin())("GET", `/v1/service-accounts/assignable-roles?workspace_id=${other.id}`)).status).toBe(403);
  });
});
