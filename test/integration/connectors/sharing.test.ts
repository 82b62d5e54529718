/**
 * The spec's connector state table, row by row, through the API: who may move a connector, what it
 * becomes (owner, visibility, who sees it), and which connections unsharing removes.
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { newTenant, type TestTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();

/** A workspace with a creator (contributor + workspace admin), a plain member, a contributor, and an organization admin; and another workspace's member. */
async function team() {
  const { organization, workspace } = tenant.caller;
  const key = (roles: string[], where = workspace) => newTenant({ organization, workspace: where, roles });
  const creator = await key(["workspace_admin"]);
  const member = await key(["user"]);
  const contributor = await key(["contributor"]);
  const orgAdmin = await key(["organization_admin"]);
  const { createWorkspace } = await import("../../../shared/services/tenancy/tenants.js");
  const elsewhere = (await createWorkspace(organization, "elsewhere")).id;
  const outsider = await key(["user"], elsewhere);
  return { creator, member, contributor, orgAdmin, outsider, as: (t: TestTenant) => connectorsClient(api, t) };
}

const ids = (reply: { body: any }) => reply.body.items.map((c: any) => c.id);

describe("PUT /v1/connectors/{connector_id}/share", () => {
  it("moves a private, user-owned connector to the workspace: workspace-owned and seen by every member, not by other workspaces", async () => {
    const t = await team();
    const connector = await t.as(t.creator).created();
    expect(connector).toMatchObject({ visibility: "private", owner_type: "user", owner_id: t.creator.caller.principal, creator_id: t.creator.caller.principal });
    expect((await t.as(t.member).get(connector.id)).status).toBe(404);

    const reply = await t.as(t.creator).share(connector.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ message: expect.stringContaining("shared with the workspace") });
    const seen = await t.as(t.member).get(connector.id);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ visibility: "shared_workspace", owner_type: "workspace", owner_id: t.creator.caller.workspace, creator_id: t.creator.caller.principal });
    expect(ids(await t.as(t.member).list())).toContain(connector.id);
    expect((await t.as(t.outsider).get(connector.id)).status).toBe(404);
    expect(ids(await t.as(t.outsider).list())).not.toContain(connector.id);
  });

  it("refuses a creator without ShareConnectorToWorkspace with 403, changing nothing", async () => {
    const t = await team();
    const connector = await t.as(t.contributor).created();

    const reply = await t.as(t.contributor).share(connector.id);

    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ type: "permission_error", code: "missing_permission" });
    expect((await t.as(t.contributor).get(connector.id)).body.visibility).toBe("private");
  });

  it("answers 404 to anyone but the creator for a private connector (they cannot see it)", async () => {
    const t = await team();
    const connector = await t.as(t.contributor).created();
    expect((await t.as(t.creator).share(connector.id)).status).toBe(404);
  });

  it("answers 200 without change when the connector is already shared with the workspace, and 409 for an organization-shared one", async () => {
    const t = await team();
    const connector = await t.as(t.creator).created();
    await t.as(t.creator).share(connector.id);
    const again = await t.as(t.creator).share(connector.id);
    expect(again.status).toBe(200);
    expect(again.body.message).toContain("already");

    const orgShared = await t.as(t.orgAdmin).created();
    expect((await t.as(t.orgAdmin).shareToOrganization(orgShared.id)).status).toBe(200);
    const conflict = await t.as(t.orgAdmin).share(orgShared.id);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ type: "conflict_error", code: "invalid_connector_visibility" });
  });
});

describe("DELETE /v1/connectors/{connector_id}/share", () => {
  it("makes the connector private to its creator: workspace-scoped and other members' connections go, the creator's stays", async () => {
    const t = await team();
    const connector = await t.as(t.creator).created();
    await t.as(t.creator).share(connector.id);
    // Connections: the creator's own, another member's own, and the workspace's.
    expect((await t.as(t.creator).activate(connector.id, "user")).status).toBe(200);
    expect((await t.as(t.creator).createCredentials(connector.id, "user", { name: "mine", credentials: { bearer_token: "creator-token" } })).status).toBe(200);
    expect((await t.as(t.member).activate(connector.id, "user")).status).toBe(200);
    expect((await t.as(t.member).createCredentials(connector.id, "user", { name: "theirs", credentials: { bearer_token: "member-token" } })).status).toBe(200);
    expect((await t.as(t.creator).activate(connector.id, "workspace")).status).toBe(200);
    expect((await t.as(t.creator).createCredentials(connector.id, "workspace", { name: "team", credentials: { bearer_token: "team-token" } })).status).toBe(200);
    expect((await t.as(t.member).get(connector.id)).body).toMatchObject({ active: true, is_authenticated: true });

    const reply = await t.as(t.creator).unshare(connector.id);

    expect(reply.status).toBe(200);
    const mine = (await t.as(t.creator).get(connector.id)).body;
    expect(mine).toMatchObject({ visibility: "private", owner_type: "user", owner_id: t.creator.caller.principal, active: true });
    expect(mine.connection_credentials.map((c: any) => [c.name, c.scope])).toStrictEqual([["mine", "user"]]);
    expect((await t.as(t.creator).credentials(connector.id, "workspace")).body.credentials).toStrictEqual([]);
    expect((await t.as(t.member).get(connector.id)).status).toBe(404);
    // Shared again, the member finds none of their old connections.
    await t.as(t.creator).share(connector.id);
    expect((await t.as(t.member).get(connector.id)).body).toMatchObject({ active: false, connection_credentials: [] });
  });

  it("refuses anyone but the creator with 403, even with ShareConnectorToWorkspace", async () => {
    const t = await team();
    const connector = await t.as(t.orgAdmin).created();
    await t.as(t.orgAdmin).share(connector.id);
    const reply = await t.as(t.creator).unshare(connector.id);
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe("not_connector_creator");
    expect((await t.as(t.creator).get(connector.id)).body.visibility).toBe("shared_workspace");
  });

  it("answers 409 for a connector that is not shared with the workspace", async () => {
    const t = await team();
    const connector = await t.as(t.creator).created();
    expect((await t.as(t.creator).unshare(connector.id)).status).toBe(409);
  });
});

describe("PUT /v1/connectors/{connector_id}/organization/share", () => {
  it("needs ShareConnectorToOrg: a workspace admin gets 403, an organization admin moves it to the organization, seen in every workspace", async () => {
    const t = await team();
    const refused = await t.as(t.creator).created();
    const denied = await t.as(t.creator).shareToOrganization(refused.id);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("missing_permission");

    const connector = await t.as(t.orgAdmin).created();
    const reply = await t.as(t.orgAdmin).shareToOrganization(connector.id);

    expect(reply.status).toBe(200);
    const seen = await t.as(t.outsider).get(connector.id);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ visibility: "shared_org", owner_type: "org", owner_id: t.orgAdmin.caller.organization });
    expect(ids(await t.as(t.outsider).list())).toContain(connector.id);
  });

  it("answers 409 for a workspace-shared connector (the table moves only private ones)", async () => {
    const t = await team();
    const connector = await t.as(t.orgAdmin).created();
    await t.as(t.orgAdmin).share(connector.id);
    expect((await t.as(t.orgAdmin).shareToOrganization(connector.id)).status).toBe(409);
  });
});

describe("DELETE /v1/connectors/{connector_id}/organization/share", () => {
  it("makes it private to its creator: organization-scoped and other members' connections go, the creator's stays", async () => {
    const t = await team();
    const connector = await t.as(t.orgAdmin).created();
    await t.as(t.orgAdmin).shareToOrganization(connector.id);
    await t.as(t.orgAdmin).createCredentials(connector.id, "user", { name: "mine", credentials: { bearer_token: "a" } });
    await t.as(t.orgAdmin).createCredentials(connector.id, "organization", { name: "org", credentials: { bearer_token: "b" } });
    await t.as(t.orgAdmin).activate(connector.id, "organization");
    await t.as(t.outsider).createCredentials(connector.id, "user", { name: "outsider", credentials: { bearer_token: "c" } });
    expect((await t.as(t.outsider).get(connector.id)).body.active).toBe(true);

    const reply = await t.as(t.orgAdmin).unshareFromOrganization(connector.id);

    expect(reply.status).toBe(200);
    const mine = (await t.as(t.orgAdmin).get(connector.id)).body;
    expect(mine).toMatchObject({ visibility: "private", owner_type: "user", active: false });
    expect(mine.connection_credentials.map((c: any) => c.name)).toStrictEqual(["mine"]);
    expect((await t.as(t.outsider).get(connector.id)).status).toBe(404);
  });

  it("refuses a caller without ShareConnectorToOrg with 403", async () => {
    const t = await team();
    const connector = await t.as(t.orgAdmin).created();
    await t.as(t.orgAdmin).shareToOrganization(connector.id);
    const reply = await t.as(t.creator).unshareFromOrganization(connector.id);
    expect(reply.status).toBe(403);
    expect((await t.as(t.creator).get(connector.id)).body.visibility).toBe("shared_org");
  });
});

describe("POST /v1/connectors/{connector_id}/{consumer_scope}/activate", () => {
  it("enables the connector for the user, the workspace or the organization; each needs its scope's permission", async () => {
    const t = await team();
    const connector = await t.as(t.orgAdmin).created();
    await t.as(t.orgAdmin).shareToOrganization(connector.id);

    expect((await t.as(t.member).activate(connector.id, "user")).status).toBe(200);
    expect((await t.as(t.member).get(connector.id)).body.active).toBe(true);
    expect((await t.as(t.contributor).get(connector.id)).body.active).toBe(false);

    expect((await t.as(t.member).activate(connector.id, "workspace")).status).toBe(403);
    expect((await t.as(t.creator).activate(connector.id, "workspace")).status).toBe(200);
    expect((await t.as(t.contributor).get(connector.id)).body.active).toBe(true);
    expect((await t.as(t.outsider).get(connector.id)).body.active).toBe(false);

    expect((await t.as(t.creator).activate(connector.id, "organization")).status).toBe(403);
    expect((await t.as(t.orgAdmin).activate(connector.id, "organization")).status).toBe(200);
    expect((await t.as(t.outsider).get(connector.id)).body.active).toBe(true);
  });

  it("answers 422 for a scope that is not user, workspace or organization", async () => {
    const connector = await connectorsClient(api, tenant).created();
    const reply = await connectorsClient(api, tenant).activate(connector.id, "team");
    expect(reply.status).toBe(422);
    expect(reply.body.detail[0].loc).toEqual(["path", "consumer_scope"]);
  });
});

describe("POST /v1/connectors/{connector_id}/organization/activate, POST /v1/connectors/{connector_id}/organization/deactivate", () => {
  it("serve the organization scope of activate and deactivate (the SDK's path with consumer_scope organization)", async () => {
    const t = await team();
    const connector = await t.as(t.orgAdmin).created();
    await t.as(t.orgAdmin).shareToOrganization(connector.id);
    expect((await t.as(t.orgAdmin).activate(connector.id, "organization")).status).toBe(200);
    expect((await t.as(t.outsider).get(connector.id)).body.active).toBe(true);
    expect((await t.as(t.creator).deactivate(connector.id, "organization")).status).toBe(403);
    expect((await t.as(t.orgAdmin).deactivate(connector.id, "organization")).status).toBe(200);
    expect((await t.as(t.outsider).get(connector.id)).body.active).toBe(false);
  });
});

describe("POST /v1/connectors/{connector_id}/{consumer_scope}/deactivate", () => {
  it("disables it for that consumer only", async () => {
    const t = await team();
    const connector = await t.as(t.creator).created();
    await t.as(t.creator).share(connector.id);
    await t.as(t.creator).activate(connector.id, "user");
    await t.as(t.creator).activate(connector.id, "workspace");

    expect((await t.as(t.creator).deactivate(connector.id, "workspace")).status).toBe(200);

    expect((await t.as(t.creator).get(connector.id)).body.active).toBe(true);
    expect((await t.as(t.member).get(connector.id)).body.active).toBe(false);
    const active = await t.as(t.member).list({ active: "true" });
    expect(ids(active)).not.toContain(connector.id);
    expect(ids(await t.as(t.creator).list({ active: "true" }))).toContain(connector.id);
  });
});
