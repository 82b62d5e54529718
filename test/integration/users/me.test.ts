import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PERMISSIONS, ROLE_PERMISSIONS } from "../../../shared/domain/identity/permissions.js";
import { createWorkspace } from "../../../shared/services/tenancy/tenants.js";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { aUserKey, aUserOf, identityClient } from "../../support/users.js";

const { api, tenant } = useEmbeddedApi();
const client = identityClient(api, tenant);

describe("GET /v1/users/me", () => {
  it("tells a user's key who it is: the user, its organization, workspace, key and roles", async () => {
    // Addresses are unique across organizations, and every test file shares one DynamoDB.
    const email = `ada-${randomUUID()}@example.com`;
    const ada = await aUserOf(tenant.caller.organization, { email, firstName: "Ada", lastName: "Lovelace" });
    const key = await aUserKey(ada, tenant.caller.workspace, ["contributor"]);

    const reply = await client.me(key);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      id: ada.id,
      email,
      first_name: "Ada",
      last_name: "Lovelace",
      workspace: { id: tenant.caller.workspace, name: "test" },
      organization: { id: tenant.caller.organization, name: "Test organization" },
      api_key: { id: expect.stringMatching(/^[0-9a-f]{16}$/), name: email },
      type: "user",
      roles: ["contributor", "member"],
      permissions: [...ROLE_PERMISSIONS.contributor].sort(),
    });
  });

  it("answers a key with no user behind it with its principal and no person", async () => {
    const reply = await client.me();

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: tenant.caller.principal, email: null, first_name: null, last_name: null, api_key: { id: tenant.caller.keyId, name: "test" } });
  });

  it("is open to every role, even one that may do nothing else", async () => {
    const viewer = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["observability_viewer"] });

    const reply = await client.me(viewer.key);

    expect(reply.status).toBe(200);
    expect(reply.body.permissions).toStrictEqual(["identity:read", "observability:read"]);
  });

  it("answers an admin key with every permission, sorted", async () => {
    const reply = await client.me();

    expect(reply.body.permissions).toStrictEqual([...PERMISSIONS].sort());
  });

  it("refuses a user key once the user has left the workspace", async () => {
    const ada = await aUserOf(tenant.caller.organization);
    const key = await aUserKey(ada, tenant.caller.workspace, ["user"]);
    const { identityStore } = await import("../../../shared/store/identity.js");
    await identityStore.removeMembership(tenant.caller.organization, tenant.caller.workspace, ada.id);

    expect((await client.me(key)).status).toBe(401);
  });
});

describe("GET /v1/users/me/organizations", () => {
  it("lists the key's organization", async () => {
    const ada = await aUserOf(tenant.caller.organization);
    const key = await aUserKey(ada, tenant.caller.workspace);

    const reply = await client.myOrganizations({}, key);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ organizations: [{ id: tenant.caller.organization, name: "Test organization" }] });
    expect((await client.myOrganizations({ offset: 1 }, key)).body).toStrictEqual({ organizations: [] });
  });

  it("answers 422 for a limit above 100", async () => {
    expect((await client.myOrganizations({ limit: 101 })).status).toBe(422);
  });
});

describe("GET /v1/users/me/workspaces", () => {
  it("lists the live workspaces the user is a member of, by name, tagged with the organization", async () => {
    const ada = await aUserOf(tenant.caller.organization);
    const key = await aUserKey(ada, tenant.caller.workspace);
    const lab = await createWorkspace(tenant.caller.organization, "lab");
    const gone = await createWorkspace(tenant.caller.organization, "archived");
    await createWorkspace(tenant.caller.organization, "not mine");
    await aUserKey(ada, lab.id);
    await aUserKey(ada, gone.id);
    const { tenancyStore } = await import("../../../shared/store/tenancy.js");
    await tenancyStore.updateWorkspace(tenant.caller.organization, gone.id, { archivedAt: new Date().toISOString() });

    const reply = await client.myWorkspaces({}, key);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      workspaces: [
        { id: lab.id, name: "lab", organization_id: tenant.caller.organization },
        { id: tenant.caller.workspace, name: "test", organization_id: tenant.caller.organization },
      ],
    });
    expect((await client.myWorkspaces({ limit: 1, offset: 1 }, key)).body.workspaces.map((w: { id: string }) => w.id)).toStrictEqual([tenant.caller.workspace]);
    expect((await client.myWorkspaces({ organization_id: randomUUID() }, key)).body).toStrictEqual({ workspaces: [] });
  });

  it("lists every live workspace of the organization to an organization admin", async () => {
    const boss = await aUserOf(tenant.caller.organization, { organizationRoles: ["organization_admin"] });
    const key = await aUserKey(boss, tenant.caller.workspace, []);
    const lab = await createWorkspace(tenant.caller.organization, "lab");

    const reply = await client.myWorkspaces({}, key);

    expect(reply.body.workspaces.map((w: { id: string }) => w.id)).toStrictEqual([lab.id, tenant.caller.workspace]);
  });

  it("lists only its own workspace to a key with no user behind it", async () => {
    await createWorkspace(tenant.caller.organization, "lab");

    const reply = await client.myWorkspaces();

    expect(reply.body.workspaces).toStrictEqual([{ id: tenant.caller.workspace, name: "test", organization_id: tenant.caller.organization }]);
  });
});
