/**
 * Users and API keys over the admin API (docs/decisions/0073-users-and-api-keys-over-the-api.md), end to end on the
 * embedded stack: what `npm run users -- create|list|key` and `npm run keys -- list|revoke` do, for the caller's
 * organization only, through admin keys only; a key made here works at once and is refused once revoked.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createWorkspace } from "../../../shared/services/tenancy/tenants.js";
import { tenancyStore } from "../../../shared/store/tenancy.js";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant, type TestTenant } from "../../support/tenant.js";
import { aUserKey, aUserOf, identityClient } from "../../support/users.js";

const { api, tenant } = useEmbeddedApi();
const client = (who: Pick<TestTenant, "key"> = tenant) => identityClient(api, who);
const anAddress = () => `ada-${randomUUID()}@example.com`;

/** The organization record the users CLI finds (newTenant makes workspaces and keys only). */
const withOrganization = () => tenancyStore.putOrganization({ id: tenant.caller.organization, name: "Test organization", createdAt: new Date().toISOString() });

describe("POST /v1/admin/users", () => {
  it("creates a user of the caller's organization: 201, listed by GET /v1/admin/users", async () => {
    await withOrganization();
    const email = anAddress();

    const created = await client().call("POST", "/v1/admin/users", { json: { email, first_name: "Ada", last_name: "Lovelace", organization_roles: ["billing_manager"] } });

    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toStrictEqual({ id: expect.any(String), email, first_name: "Ada", last_name: "Lovelace", organization_roles: ["billing_manager"], created_at: expect.stringMatching(/Z$/) });
    const listed = await client().call("GET", "/v1/admin/users");
    expect(listed.body).toStrictEqual({ object: "list", data: [created.body], total: 1, page: 1, page_size: 25 });
  });

  it("answers 409 email_taken for an address that exists already", async () => {
    await withOrganization();
    const email = anAddress();
    await aUserOf(randomUUID(), { email });

    const reply = await client().call("POST", "/v1/admin/users", { json: { email } });

    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ object: "error", type: "conflict_error", code: "email_taken" });
  });
});

describe("GET /v1/admin/users", () => {
  it("lists the organization's users only, paged and searched", async () => {
    const [ada, bob] = [await aUserOf(tenant.caller.organization, { firstName: "Ada" }), await aUserOf(tenant.caller.organization, { firstName: "Bob" })];
    await aUserOf(randomUUID());

    const all = await client().call("GET", "/v1/admin/users", { query: { page_size: 1, page: 2 } });
    const searched = await client().call("GET", "/v1/admin/users", { query: { search: "bob" } });

    expect(all.body).toMatchObject({ total: 2, page: 2, page_size: 1, data: [{ id: bob.id }] });
    expect(searched.body.data.map((u: { id: string }) => u.id)).toStrictEqual([bob.id]);
    expect(ada.organization).toBe(tenant.caller.organization);
  });

  it("answers 403 admin_required to a workspace admin's key", async () => {
    const workspaceAdmin = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["workspace_admin"] });

    const reply = await client(workspaceAdmin).call("GET", "/v1/admin/users");

    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ type: "permission_error", code: "admin_required" });
  });
});

describe("GET /v1/admin/workspaces/{workspace_uuid}/users", () => {
  it("lists the workspace's members with their roles there", async () => {
    const owner = await aUserOf(tenant.caller.organization);
    const created = await client().createWorkspace({ name: "Members", admin_user_id: owner.id });
    const member = await aUserOf(tenant.caller.organization);
    await client().addUsers(created.body.uuid, [{ user_uuid: member.id, role_names: ["contributor"] }]);

    const reply = await client().call("GET", `/v1/admin/workspaces/${created.body.uuid}/users`);

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ object: "list", total: 2, page: 1, page_size: 25 });
    expect(reply.body.data.map((m: { user_id: string; email: string; roles: string[] }) => [m.user_id, m.email, m.roles])).toStrictEqual([
      [owner.id, owner.email, ["workspace_admin"]],
      [member.id, member.email, ["contributor"]],
    ]);
  });

  it("answers 404 for a workspace of another organization", async () => {
    const other = await newTenant();

    const reply = await client().call("GET", `/v1/admin/workspaces/${other.caller.workspace}/users`);

    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ type: "not_found_error", code: "workspace_not_found" });
  });
});

describe("POST /v1/admin/api-keys", () => {
  it("makes a key for a member, shown once, that works at once as the user", async () => {
    const ada = await aUserOf(tenant.caller.organization);
    await aUserKey(ada, tenant.caller.workspace, ["user"]);

    const created = await client().call("POST", "/v1/admin/api-keys", { json: { workspace_id: tenant.caller.workspace, user_id: ada.id, name: "console" } });

    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(created.body).toMatchObject({ object: "api_key", name: "console", type: "user", user_id: ada.id, workspace_id: tenant.caller.workspace, admin: false, roles: [], state: "active", key: expect.stringMatching(/^pak_/) });
    const me = await client().me(created.body.key);
    expect(me.body).toMatchObject({ id: ada.id, api_key: { id: created.body.id, name: "console" }, roles: ["user", "member"] });
  });

  it("answers 400 not_a_member for a user outside the workspace, and 404 for a user of another organization", async () => {
    const outsider = await aUserOf(tenant.caller.organization);
    const stranger = await aUserOf(randomUUID());

    const notMember = await client().call("POST", "/v1/admin/api-keys", { json: { workspace_id: tenant.caller.workspace, user_id: outsider.id } });
    const unknown = await client().call("POST", "/v1/admin/api-keys", { json: { workspace_id: tenant.caller.workspace, user_id: stranger.id } });

    expect([notMember.status, notMember.body.code]).toStrictEqual([400, "not_a_member"]);
    expect([unknown.status, unknown.body.code]).toStrictEqual([404, "user_not_found"]);
  });
});

describe("GET /v1/admin/api-keys", () => {
  it("lists the organization's keys with their principal, filtered by workspace and user, never a secret or a hash", async () => {
    const lab = await createWorkspace(tenant.caller.organization, "lab");
    const ada = await aUserOf(tenant.caller.organization);
    const key = await aUserKey(ada, lab.id, ["user"]);
    await newTenant();

    const all = await client().call("GET", "/v1/admin/api-keys");
    const ofAda = await client().call("GET", "/v1/admin/api-keys", { query: { workspace_id: lab.id, user_id: ada.id } });

    expect(all.body.total).toBe(2);
    expect(all.body.data.map((k: { id: string }) => k.id)).toContain(tenant.caller.keyId);
    expect(ofAda.body).toMatchObject({ object: "list", total: 1, data: [{ object: "api_key", type: "user", user_id: ada.id, principal_id: ada.id, workspace_id: lab.id, state: "active", revoked_at: null }] });
    expect(JSON.stringify(all.body)).not.toContain(key);
    expect(Object.keys(ofAda.body.data[0])).not.toContain("hash");
  });
});

describe("DELETE /v1/admin/api-keys/{key_id}", () => {
  it("revokes a key of the organization: 204, refused from then on, listed as revoked with include_revoked", async () => {
    const ada = await aUserOf(tenant.caller.organization);
    const key = await aUserKey(ada, tenant.caller.workspace, ["user"]);
    const before = await client().me(key);

    const reply = await client().call("DELETE", `/v1/admin/api-keys/${before.body.api_key.id}`);

    expect(reply.status).toBe(204);
    expect((await client().me(key)).status).toBe(401);
    const listed = await client().call("GET", "/v1/admin/api-keys", { query: { user_id: ada.id, include_revoked: "true" } });
    expect(listed.body.data).toMatchObject([{ id: before.body.api_key.id, state: "revoked", revoked_at: expect.any(String) }]);
    expect((await client().call("GET", "/v1/admin/api-keys", { query: { user_id: ada.id } })).body.total).toBe(0);
  });

  it("answers 404 for a key of another organization, and leaves it working", async () => {
    const other = await newTenant();

    const reply = await client().call("DELETE", `/v1/admin/api-keys/${other.caller.keyId}`);

    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ type: "not_found_error", code: "api_key_not_found" });
    expect((await client(other).me()).status).toBe(200);
  });
});
