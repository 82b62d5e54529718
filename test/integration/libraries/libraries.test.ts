/**
 * Libraries and their accesses over HTTP against the local API and DynamoDB Local: who sees a library (owner,
 * shares with a user, a workspace, the organization), what each level may do, and paging of the list.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { librariesClient } from "../../support/libraries-client.js";
import { newTenant, type TestTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const client = librariesClient(api, tenant);

/** In the test tenant's organization: an owner (workspace admin), a contributor of the same workspace, a colleague in another workspace, an organization admin; and a stranger of another organization. */
async function team() {
  const { organization, workspace } = tenant.caller;
  const key = (roles: string[], where = workspace) => newTenant({ organization, workspace: where, roles });
  const { createWorkspace } = await import("../../../shared/services/tenancy/tenants.js");
  const elsewhere = (await createWorkspace(organization, "elsewhere")).id;
  const owner = await key(["workspace_admin"]);
  const contributor = await key(["workspace_contributor"]);
  const colleague = await key(["workspace_admin"], elsewhere);
  const orgAdmin = await key(["organization_admin"]);
  const stranger = await newTenant({ roles: ["workspace_admin"] });
  return { owner, contributor, colleague, orgAdmin, stranger, elsewhere, as: (t: TestTenant) => librariesClient(api, t) };
}

const ids = (reply: { body: any }) => reply.body.data.map((l: { id: string }) => l.id);

describe("POST /v1/libraries, GET /v1/libraries/{library_id}, PATCH /v1/libraries/{library_id}, PUT /v1/libraries/{library_id}, DELETE /v1/libraries/{library_id}", () => {
  it("creates (201), reads, updates both ways and deletes (200 with the library), then answers 404", async () => {
    const created = await client.create({ name: "Handbook", description: "HR", chunk_size: 2048 });
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toBe("application/json");
    const library = created.body;
    expect(library).toMatchObject({ name: "Handbook", description: "HR", chunk_size: 2048, nb_documents: 0, total_size: 0, owner_type: "Workspace", owner_id: tenant.caller.workspace });

    expect((await client.get(library.id)).body).toEqual(library);
    expect((await client.update(library.id, { name: "Renamed" })).body).toMatchObject({ name: "Renamed", description: "HR" });
    expect((await client.replace(library.id, { description: null })).body).toMatchObject({ name: "Renamed", description: null });

    const deleted = await client.remove(library.id);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: library.id, name: "Renamed" });
    expect((await client.get(library.id)).status).toBe(404);
    expect(ids(await client.list())).not.toContain(library.id);
  });

  it("answers 422 with detail for a bad body and a bad id", async () => {
    const bad = await client.create({ name: "" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "name"]);
    expect((await client.get("not-a-uuid")).status).toBe(422);
  });
});

describe("GET /v1/libraries", () => {
  it("pages newest first with next_page_token until it is null", async () => {
    const made = [];
    for (let i = 0; i < 5; i += 1) made.push(await client.created({ name: `lib ${i}` }));
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const reply = await client.list({ page_size: "2", ...(token ? { page_token: token } : {}) });
      expect(reply.status).toBe(200);
      expect(reply.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...ids(reply));
      token = reply.body.next_page_token ?? undefined;
    } while (token);
    expect(seen).toEqual(made.map((l) => l.id).reverse());
    expect((await client.list({ search: "LIB 3" })).body.data.map((l: { name: string }) => l.name)).toEqual(["lib 3"]);
  });
});

describe("PUT /v1/libraries/{library_id}/share, GET /v1/libraries/{library_id}/share, DELETE /v1/libraries/{library_id}/share", () => {
  it("a library is invisible (404) outside its workspace until shared; a Viewer reads, an Editor changes, only the owner deletes", async () => {
    const t = await team();
    const library = await t.as(t.owner).created({ name: "Policies" });
    expect((await t.as(t.colleague).get(library.id)).status).toBe(404);
    expect(ids(await t.as(t.colleague).list())).not.toContain(library.id);
    // A member of the owning workspace is an owner of the library.
    expect((await t.as(t.contributor).get(library.id)).status).toBe(200);

    const shared = await t.as(t.owner).share(library.id, { level: "Viewer", share_with_uuid: t.elsewhere, share_with_type: "Workspace" });
    expect(shared.status).toBe(200);
    expect(shared.body).toEqual({ library_id: library.id, user_id: null, org_id: tenant.caller.organization, role: "Viewer", share_with_type: "Workspace", share_with_uuid: t.elsewhere });
    expect((await t.as(t.colleague).get(library.id)).body).toMatchObject({ id: library.id, explicit_workspace_members_count: 1 });
    expect(ids(await t.as(t.colleague).list())).toContain(library.id);
    expect((await t.as(t.colleague).update(library.id, { name: "x" })).status).toBe(403);

    await t.as(t.owner).share(library.id, { level: "Editor", share_with_uuid: t.elsewhere, share_with_type: "Workspace" });
    expect((await t.as(t.colleague).update(library.id, { name: "edited elsewhere" })).status).toBe(200);
    expect((await t.as(t.colleague).remove(library.id)).status).toBe(403);
    expect((await t.as(t.colleague).share(library.id, { level: "Viewer", share_with_uuid: t.owner.caller.principal, share_with_type: "User" })).status).toBe(403);

    const accesses = await t.as(t.colleague).accesses(library.id);
    expect(accesses.body.data.map((a: { role: string; share_with_type: string }) => `${a.role} ${a.share_with_type}`)).toEqual(["Owner Workspace", "Editor Workspace"]);

    const removed = await t.as(t.owner).unshare(library.id, { share_with_uuid: t.elsewhere, share_with_type: "Workspace" });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ role: "Editor", share_with_uuid: t.elsewhere });
    expect((await t.as(t.colleague).get(library.id)).status).toBe(404);
  });

  it("shares with one user, with the organization (organization admins only), never with another organization", async () => {
    const t = await team();
    const library = await t.as(t.owner).created();
    expect((await t.as(t.owner).share(library.id, { level: "Viewer", share_with_uuid: t.colleague.caller.principal, share_with_type: "User" })).status).toBe(200);
    expect((await t.as(t.colleague).get(library.id)).body).toMatchObject({ explicit_user_members_count: 1 });

    const org = { level: "Viewer", share_with_uuid: tenant.caller.organization, share_with_type: "Org" };
    expect((await t.as(t.owner).share(library.id, org)).status).toBe(403);
    expect((await t.as(t.orgAdmin).share(library.id, org)).status).toBe(200);
    expect((await t.as(t.owner).get(library.id)).body.org_sharing_role).toBe("Viewer");

    expect((await t.as(t.orgAdmin).share(library.id, { ...org, share_with_uuid: t.stranger.caller.organization })).status).toBe(400);
    expect((await t.as(t.owner).share(library.id, { level: "Viewer", share_with_uuid: t.stranger.caller.principal, share_with_type: "User" })).status).toBe(404);
    expect((await t.as(t.stranger).get(library.id)).status).toBe(404);
    expect((await t.as(t.owner).share(library.id, { level: "Viewer", share_with_uuid: randomUUID(), share_with_type: "Workspace" })).status).toBe(404);
  });

  it("records shares and unshares in the audit log", async () => {
    const t = await team();
    const library = await t.as(t.owner).created();
    await t.as(t.owner).share(library.id, { level: "Editor", share_with_uuid: t.colleague.caller.principal, share_with_type: "User" });
    await t.as(t.owner).unshare(library.id, { share_with_uuid: t.colleague.caller.principal, share_with_type: "User" });
    const events = await t.as(t.orgAdmin).request("GET", "/v1/admin/audit-events", { query: { target: library.id } });
    expect(events.status).toBe(200);
    expect(events.body.data.map((e: { operation: string; actor: { id: string } }) => [e.operation, e.actor.id]).toSorted()).toEqual([
      ["library.share", t.owner.caller.principal],
      ["library.unshare", t.owner.caller.principal],
    ]);
  });

  it("deleting a library removes it from the lists of everyone it was shared with", async () => {
    const t = await team();
    const library = await t.as(t.owner).created();
    await t.as(t.owner).share(library.id, { level: "Viewer", share_with_uuid: t.elsewhere, share_with_type: "Workspace" });
    expect(ids(await t.as(t.colleague).list())).toContain(library.id);
    expect((await t.as(t.owner).remove(library.id)).status).toBe(200);
    expect(ids(await t.as(t.colleague).list())).not.toContain(library.id);
    expect((await t.as(t.owner).accesses(library.id)).status).toBe(404);
  });
});
