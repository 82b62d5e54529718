import { randomUUID } from "node:crypto";
import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as listAccesses } from "../../../functions/libraries/list-accesses.js";
import { handler as share } from "../../../functions/libraries/share.js";
import { handler as unshare } from "../../../functions/libraries/unshare.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aLibrary, headIn, libraryItems } from "../../support/library-items.js";

const dynamo = mockDynamo();
let tables: FakeTables;
const admin = aCaller({ roles: ["workspace_admin"] });
const orgAdmin = aCaller({ organization: admin.organization, workspace: admin.workspace, roles: ["organization_admin"] });
/** A user and a workspace of the same organization, which the tenancy table knows. */
const colleague = aCaller({ organization: admin.organization });
beforeEach(() => {
  tables = serveTables(dynamo, {
    tenancy: [
      { pk: `ORG#${admin.organization}`, sk: `WS#${colleague.workspace}`, id: colleague.workspace, organization: admin.organization, name: "other" },
      { pk: `ORG#${admin.organization}`, sk: `USER#${colleague.principal}`, id: colleague.principal, organization: admin.organization, email: "c@example.com" },
    ],
  }, { writes: true });
});

const stored = (shares: Parameters<typeof libraryItems>[1] = [], overrides: Parameters<typeof aLibrary>[1] = {}) => {
  const library = aLibrary(admin, overrides);
  tables.put("libraries", ...libraryItems(library, shares));
  return library;
};
const path = (id: string) => `/v1/libraries/${id}/share`;
const put = (id: string, body: unknown, who = admin) => aJsonEvent(body, { method: "PUT", path: path(id), pathParameters: { library_id: id }, caller: who });
const del = (id: string, body: unknown, who = admin) => aJsonEvent(body, { method: "DELETE", path: path(id), pathParameters: { library_id: id }, caller: who });
const audits = () => tables.items("audit").map((i) => ({ operation: i.operation, targets: i.targets, before: i.before, after: i.after }));

describe("PUT /v1/libraries/{library_id}/share", () => {
  it("shares with a user of the organization: the access, its grantee entry and the head's count, in one transaction", async () => {
    const library = stored();
    const response = await invoke(share, put(library.id, { level: "Viewer", share_with_uuid: colleague.principal, share_with_type: "User" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ library_id: library.id, user_id: colleague.principal, org_id: admin.organization, role: "Viewer", share_with_type: "User", share_with_uuid: colleague.principal });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
    expect(tables.items("libraries")).toContainEqual(expect.objectContaining({ pk: `ORG#${admin.organization}#GRANTEE#User#${colleague.principal}`, sk: `LIB#${library.id}`, role: "Viewer" }));
    expect(headIn(tables, library)).toMatchObject({ userShares: 1, workspaceShares: 0 });
  });

  it("records each share as an audit event with the role before and after", async () => {
    const library = stored();
    await invoke(share, put(library.id, { level: "Viewer", share_with_uuid: colleague.workspace, share_with_type: "Workspace" }));
    await invoke(share, put(library.id, { level: "Editor", share_with_uuid: colleague.workspace, share_with_type: "Workspace" }));
    expect(audits()).toEqual([
      { operation: "library.share", targets: [{ type: "library", id: library.id }, { type: "workspace", id: colleague.workspace }], before: { role: null }, after: { role: "Viewer" } },
      { operation: "library.share", targets: [{ type: "library", id: library.id }, { type: "workspace", id: colleague.workspace }], before: { role: "Viewer" }, after: { role: "Editor" } },
    ]);
    // Changing a level is not a new share: the count stays at one.
    expect(headIn(tables, library)).toMatchObject({ workspaceShares: 1 });
  });

  it("shares with the organization only with libraries:share-organization, and sets org_sharing_role", async () => {
    const library = stored();
    const body = { level: "Viewer", share_with_uuid: admin.organization, share_with_type: "Org" };
    expect((await invoke(share, put(library.id, body))).statusCode).toBe(403);
    expect((await invoke(share, put(library.id, body, orgAdmin))).statusCode).toBe(200);
    expect(headIn(tables, library)).toMatchObject({ orgRole: "Viewer" });
  });

  it("refuses another organization, the owner's own access, and unknown users or workspaces", async () => {
    const library = stored();
    const outside = await invoke(share, put(library.id, { level: "Viewer", share_with_uuid: randomUUID(), share_with_type: "Org" }, orgAdmin));
    expect(outside.statusCode).toBe(400);
    expect(outside.json.code).toBe("library_share_outside_organization");
    const owner = await invoke(share, put(library.id, { level: "Viewer", share_with_uuid: admin.workspace, share_with_type: "Workspace" }));
    expect(owner.statusCode).toBe(400);
    expect(owner.json.code).toBe("library_owner_access");
    expect((await invoke(share, put(library.id, { level: "Viewer", share_with_uuid: randomUUID(), share_with_type: "User" }))).statusCode).toBe(404);
    expect((await invoke(share, put(library.id, { level: "Viewer", share_with_uuid: randomUUID(), share_with_type: "Workspace" }))).statusCode).toBe(404);
    expect(audits()).toEqual([]);
  });

  it("answers 422 for a level that is not Viewer or Editor", async () => {
    const library = stored();
    const response = await invoke(share, put(library.id, { level: "Owner", share_with_uuid: colleague.principal, share_with_type: "User" }));
    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["body", "level"]);
  });

  it("is the owner's: an Editor it is shared with gets 403; a library not shared with the caller is 404", async () => {
    const editorAdmin = aCaller({ organization: admin.organization, roles: ["workspace_admin"] });
    const library = stored([{ type: "Workspace", id: editorAdmin.workspace, role: "Editor" }]);
    const body = { level: "Viewer", share_with_uuid: colleague.principal, share_with_type: "User" };
    expect((await invoke(share, put(library.id, body, editorAdmin))).statusCode).toBe(403);
    expect((await invoke(share, put(stored().id, body, editorAdmin))).statusCode).toBe(404);
  });

  it("answers 403 to a contributor (the route needs libraries:share)", async () => {
    const contributor = aCaller({ organization: admin.organization, workspace: admin.workspace, roles: ["workspace_contributor"] });
    const library = stored();
    expect((await invoke(share, put(library.id, { level: "Viewer", share_with_uuid: colleague.principal, share_with_type: "User" }, contributor))).statusCode).toBe(403);
  });

  it("retries a share that lost a race, and answers 409 when it keeps losing", async () => {
    const library = stored();
    dynamo.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: "cancelled", $metadata: {} }));
    const response = await invoke(share, put(library.id, { level: "Viewer", share_with_uuid: colleague.principal, share_with_type: "User" }));
    expect(response.statusCode).toBe(409);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(10);
  });
});

describe("DELETE /v1/libraries/{library_id}/share", () => {
  it("removes the access and its grantee entry, answers the removed access, and records the unshare", async () => {
    const library = stored([{ type: "User", id: colleague.principal, role: "Editor" }], { userShares: 1 });
    const response = await invoke(unshare, del(library.id, { share_with_uuid: colleague.principal, share_with_type: "User" }));
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ library_id: library.id, role: "Editor", share_with_type: "User", share_with_uuid: colleague.principal });
    expect(tables.items("libraries").filter((i) => String(i.pk).includes(`GRANTEE#User#${colleague.principal}`) || String(i.sk).includes(colleague.principal))).toEqual([]);
    expect(headIn(tables, library)).toMatchObject({ userShares: 0 });
    expect(audits()).toEqual([{ operation: "library.unshare", targets: [{ type: "library", id: library.id }, { type: "principal", id: colleague.principal }], before: { role: "Editor" }, after: null }]);
  });

  it("answers 404 for an access that does not exist, and 400 for the owner's own", async () => {
    const library = stored();
    expect((await invoke(unshare, del(library.id, { share_with_uuid: colleague.principal, share_with_type: "User" }))).statusCode).toBe(404);
    expect((await invoke(unshare, del(library.id, { share_with_uuid: admin.workspace, share_with_type: "Workspace" }))).statusCode).toBe(400);
  });

  it("clears org_sharing_role when the organization's access goes", async () => {
    const library = stored([{ type: "Org", id: admin.organization, role: "Editor" }], { orgRole: "Editor" });
    expect((await invoke(unshare, del(library.id, { share_with_uuid: admin.organization, share_with_type: "Org" }, orgAdmin))).statusCode).toBe(200);
    expect(headIn(tables, library)).toMatchObject({ orgRole: null });
  });
});

describe("GET /v1/libraries/{library_id}/share", () => {
  it("lists every access, the owner's first, to anyone who may read the library", async () => {
    const library = stored([{ type: "User", id: colleague.principal, role: "Viewer" }]);
    const response = await invoke(listAccesses, anEvent({ path: path(library.id), pathParameters: { library_id: library.id }, caller: colleague }));
    expect(response.statusCode).toBe(200);
    expect(response.json.data).toEqual([
      { library_id: library.id, user_id: null, org_id: admin.organization, role: "Owner", share_with_type: "Workspace", share_with_uuid: admin.workspace },
      { library_id: library.id, user_id: colleague.principal, org_id: admin.organization, role: "Viewer", share_with_type: "User", share_with_uuid: colleague.principal },
    ]);
  });

  it("answers 404 to a caller the library is not shared with", async () => {
    const library = stored();
    expect((await invoke(listAccesses, anEvent({ path: path(library.id), pathParameters: { library_id: library.id }, caller: aCaller({ organization: admin.organization }) }))).statusCode).toBe(404);
  });
});
