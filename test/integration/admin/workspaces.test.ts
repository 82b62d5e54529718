import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { tenancyStore } from "../../../shared/store/tenancy.js";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { aUserKey, aUserOf, identityClient } from "../../support/users.js";

const { api, tenant } = useEmbeddedApi();
const admin = identityClient(api, tenant);

/** A workspace made through the API, with a fresh user of the tenant's organization as its admin. */
async function aWorkspace(body: Record<string, unknown> = {}) {
  const owner = await aUserOf(tenant.caller.organization);
  const reply = await admin.createWorkspace({ name: "Product Team", admin_user_id: owner.id, ...body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { workspace: reply.body, owner };
}

describe("POST /v1/admin/workspaces", () => {
  it("creates a workspace whose admin is admin_user_id, and answers 200 with the enriched workspace", async () => {
    const { workspace } = await aWorkspace({ description: "Product and design", icon: "★" });

    expect(workspace).toStrictEqual({
      uuid: expect.any(String),
      name: "Product Team",
      description: "Product and design",
      icon: "★",
      members_count: 1,
      groups_count: null,
      spend_limit: null,
      is_default: false,
      is_archived: false,
      raw_roles: ["A"],
      raw_role: "A",
    });
  });

  it("adds every user of the organization with add_all_org_members", async () => {
    await aUserOf(tenant.caller.organization);
    await aUserOf(tenant.caller.organization);

    const { workspace } = await aWorkspace({ add_all_org_members: true });

    expect(workspace.members_count).toBe(3);
  });

  it("answers raw_roles with the calling user's roles in the new workspace", async () => {
    const orgAdmin = await aUserOf(tenant.caller.organization, { organizationRoles: ["organization_admin"] });
    const key = await aUserKey(orgAdmin, tenant.caller.workspace, []);

    const reply = await identityClient(api, { key }).createWorkspace({ name: "Mine", admin_user_id: orgAdmin.id });

    expect(reply.status).toBe(200);
    expect(reply.body.raw_roles).toStrictEqual(["A", "7bde5959-d676-47d2-b779-35b64323d278"]);
    expect(reply.body.raw_role).toBe("A");
  });

  it("answers 404 for an admin_user_id that is no user of the organization", async () => {
    const stranger = await aUserOf(randomUUID());

    const reply = await admin.createWorkspace({ name: "X", admin_user_id: stranger.id });

    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ object: "error", type: "not_found_error", code: "user_not_found", param: "admin_user_id" });
  });

  it("refuses a key that is not an admin's with 403", async () => {
    const member = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["workspace_admin"] });

    const reply = await identityClient(api, member).createWorkspace({ name: "X", admin_user_id: randomUUID() });

    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ object: "error", type: "permission_error", code: "admin_required" });
  });
});

describe("GET /v1/admin/workspaces", () => {
  it("pages the organization's workspaces from page 1 with their total", async () => {
    for (const name of ["a", "b", "c"]) await aWorkspace({ name });

    const first = await admin.listWorkspaces({ page_size: 2 });
    const second = await admin.listWorkspaces({ page_size: 2, page: 2 });

    expect(first.status).toBe(200);
    // The tenant's own workspace ("test") and the three made here.
    expect(first.body).toMatchObject({ object: "list", total: 4, page: 1, page_size: 2 });
    expect(first.body.items).toHaveLength(2);
    expect(second.body).toMatchObject({ total: 4, page: 2, page_size: 2 });
    expect(second.body.items.map((w: { name: string }) => w.name)).toStrictEqual(["b", "c"]);
  });

  it("filters by name with search, ignoring case", async () => {
    await aWorkspace({ name: "Research lab" });
    await aWorkspace({ name: "Sales" });

    const reply = await admin.listWorkspaces({ search: "LAB" });

    expect(reply.body.total).toBe(1);
    expect(reply.body.items[0]).toMatchObject({ name: "Research lab", members_count: 1, is_default: false, spend_limit: null });
  });

  it("lists the default workspace first", async () => {
    const id = randomUUID();
    await tenancyStore.putWorkspace({ id, organization: tenant.caller.organization, name: "Default", isDefault: true, createdAt: new Date().toISOString() });

    const reply = await admin.listWorkspaces();

    expect(reply.body.items[0]).toMatchObject({ uuid: id, is_default: true });
  });

  it("shows another organization's workspaces to no one", async () => {
    const other = await newTenant();

    const reply = await identityClient(api, other).listWorkspaces();

    expect(reply.body.items.map((w: { uuid: string }) => w.uuid)).toStrictEqual([other.caller.workspace]);
  });
});

describe("PATCH /v1/admin/workspaces/{workspace_uuid}", () => {
  it("changes the fields given and keeps the others", async () => {
    const { workspace } = await aWorkspace({ description: "old", icon: "★" });
    const { raw_roles: _roles, raw_role: _role, ...plain } = workspace;

    const reply = await admin.updateWorkspace(workspace.uuid, { name: "Renamed", icon: null });

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ ...plain, name: "Renamed", icon: null });
  });

  it("answers 404 for a workspace of another organization", async () => {
    const other = await newTenant();

    const reply = await admin.updateWorkspace(other.caller.workspace, { name: "mine" });

    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ object: "error", type: "not_found_error", code: "workspace_not_found" });
  });
});

describe("DELETE /v1/admin/workspaces/{workspace_uuid}", () => {
  it("archives: 204, the workspace's keys answer 401 from now on, and it is listed with is_archived=true", async () => {
    const { workspace, owner } = await aWorkspace();
    const key = await aUserKey(owner, workspace.uuid, []);
    expect((await admin.me(key)).status).toBe(200);

    const reply = await admin.archiveWorkspace(workspace.uuid);

    expect(reply.status).toBe(204);
    expect(reply.body).toBe("");
    expect((await admin.me(key)).status).toBe(401);
    expect((await admin.listWorkspaces()).body.items.map((w: { uuid: string }) => w.uuid)).not.toContain(workspace.uuid);
    const archived = (await admin.listWorkspaces({ is_archived: true })).body.items.find((w: { uuid: string }) => w.uuid === workspace.uuid);
    expect(archived).toMatchObject({ name: "Product Team", is_archived: true, members_count: 1 });
  });

  it("answers 204 again for a workspace archived already", async () => {
    const { workspace } = await aWorkspace();
    await admin.archiveWorkspace(workspace.uuid);

    expect((await admin.archiveWorkspace(workspace.uuid)).status).toBe(204);
  });

  it("refuses to archive the default workspace with 400", async () => {
    const id = randomUUID();
    await tenancyStore.putWorkspace({ id, organization: tenant.caller.organization, name: "Default", isDefault: true, createdAt: new Date().toISOString() });

    const reply = await admin.archiveWorkspace(id);

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ object: "error", code: "default_workspace" });
  });

  it("answers 404 for a workspace of another organization and leaves it alone", async () => {
    const other = await newTenant();

    expect((await admin.archiveWorkspace(other.caller.workspace)).status).toBe(404);
    expect((await identityClient(api, other).me()).status).toBe(200);
  });
});

describe("POST /v1/admin/workspaces/{workspace_uuid}/add-users", () => {
  it("adds the users with their roles and counts only those added", async () => {
    const { workspace, owner } = await aWorkspace();
    const [ada, bob] = [await aUserOf(tenant.caller.organization), await aUserOf(tenant.caller.organization)];

    const reply = await admin.addUsers(workspace.uuid, [{ user_uuid: ada.id, role_names: ["contributor"] }, { user_uuid: bob.id }, { user_uuid: owner.id, roles: ["M"] }]);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ added_members_count: 2 });
    const key = await aUserKey(ada, workspace.uuid, []);
    expect((await admin.me(key)).body.roles).toStrictEqual(["contributor", "member"]);
    expect((await admin.listWorkspaces({ search: "Product" })).body.items[0].members_count).toBe(3);
  });

  it("answers 404 for a user of another organization and adds no one", async () => {
    const { workspace } = await aWorkspace();
    const ada = await aUserOf(tenant.caller.organization);
    const stranger = await aUserOf(randomUUID());

    const reply = await admin.addUsers(workspace.uuid, [{ user_uuid: ada.id }, { user_uuid: stranger.id }]);

    expect(reply.status).toBe(404);
    expect((await admin.listWorkspaces({ search: "Product" })).body.items[0].members_count).toBe(1);
  });
});

describe("PATCH /v1/admin/workspaces/{workspace_uuid}/users", () => {
  it("adds new members and changes the roles of members", async () => {
    const { workspace, owner } = await aWorkspace();
    const [ada, bob] = [await aUserOf(tenant.caller.organization), await aUserOf(tenant.caller.organization)];
    await admin.addUsers(workspace.uuid, [{ user_uuid: ada.id }]);

    const reply = await admin.putUsers(workspace.uuid, [
      { user_uuid: ada.id, roles: ["A"] },
      { user_uuid: bob.id, role_name: "billing" },
      { user_uuid: owner.id, role: "731eb2be-a74f-4070-b797-35bf7009e553" },
    ]);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ added_members_count: 1, updated_members_count: 1 });
    const key = await aUserKey(ada, workspace.uuid, []);
    expect((await admin.me(key)).body.roles).toContain("workspace_admin");
  });

  it("refuses with 409 a change that leaves the workspace without an admin", async () => {
    const { workspace, owner } = await aWorkspace();

    const reply = await admin.putUsers(workspace.uuid, [{ user_uuid: owner.id, role_names: ["user"] }]);

    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ object: "error", type: "conflict_error", code: "last_admin" });
  });

  it("answers 422 for roles given both as role_names and roles", async () => {
    const { workspace, owner } = await aWorkspace();

    const reply = await admin.putUsers(workspace.uuid, [{ user_uuid: owner.id, role_names: ["user"], roles: ["M"] }]);

    expect(reply.status).toBe(422);
  });
});

describe("DELETE /v1/admin/workspaces/{workspace_uuid}/remove-users", () => {
  it("removes members and lists those it could not remove: the last admin and non-members", async () => {
    const { workspace, owner } = await aWorkspace();
    const ada = await aUserOf(tenant.caller.organization);
    await admin.addUsers(workspace.uuid, [{ user_uuid: ada.id }]);
    const adaKey = await aUserKey(ada, workspace.uuid, []);
    const unknown = randomUUID();

    const reply = await admin.removeUsers(workspace.uuid, [ada.id, owner.id, unknown]);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ deleted_members_count: 1, not_deleted_members: [owner.id, unknown] });
    expect((await admin.me(adaKey)).status).toBe(401);
    expect((await admin.listWorkspaces({ search: "Product" })).body.items[0].members_count).toBe(1);
  });

  it("answers 404 for a workspace of another organization", async () => {
    const other = await newTenant();

    expect((await admin.removeUsers(other.caller.workspace, [randomUUID()])).status).toBe(404);
  });
});
