/**
 * Libraries (beta) driven by the official, unmodified SDK (`client.beta.libraries.*` and `.accesses.*`) against the
 * local server: every answer parsed by the SDK's own models (a missing required field would throw there).
 */
import { Mistral } from "@mistralai/mistralai";
import { HTTPValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { newTenant, type TestTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
let colleague: TestTenant;
let colleagueClient: Mistral;
beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  const { createWorkspace } = await import("../../shared/services/tenancy/tenants.js");
  const elsewhere = (await createWorkspace(tenant.caller.organization, "elsewhere")).id;
  colleague = await newTenant({ organization: tenant.caller.organization, workspace: elsewhere, roles: ["workspace_contributor"] });
  colleagueClient = sdkClient(api, colleague.key);
});

describe("client.beta.libraries: create POST /v1/libraries, get GET /v1/libraries/{library_id}, update PATCH /v1/libraries/{library_id}, librariesUpdateV1 PUT /v1/libraries/{library_id}, list GET /v1/libraries, delete DELETE /v1/libraries/{library_id}", () => {
  it("creates (201) and gets a library in the SDK's Library type", async () => {
    const library = await client.beta.libraries.create({ name: "SDK handbook", description: "made by the SDK", chunkSize: 1000 });
    expect(library).toMatchObject({ name: "SDK handbook", description: "made by the SDK", chunkSize: 1000, nbDocuments: 0, totalSize: 0, ownerType: "Workspace", ownerId: tenant.caller.workspace });
    expect(library.createdAt).toBeInstanceOf(Date);
    expect(await client.beta.libraries.get({ libraryId: library.id })).toEqual(library);
  });

  it("updates through PATCH (update) and the deprecated PUT (librariesUpdateV1)", async () => {
    const library = await client.beta.libraries.create({ name: "before" });
    expect(await client.beta.libraries.update({ libraryId: library.id, updateLibraryRequest: { name: "patched" } })).toMatchObject({ id: library.id, name: "patched" });
    expect(await client.beta.libraries.librariesUpdateV1({ libraryId: library.id, updateLibraryRequest: { description: "put" } })).toMatchObject({ name: "patched", description: "put" });
  });

  it("lists with the SDK's default page (page 0 of 100) and pages with pageToken", async () => {
    const a = await client.beta.libraries.create({ name: "page a" });
    const b = await client.beta.libraries.create({ name: "page b" });
    const all = await client.beta.libraries.list();
    expect(all.data.map((l) => l.id).slice(0, 2)).toEqual([b.id, a.id]);
    const first = await client.beta.libraries.list({ pageSize: 1 });
    expect(first.data.map((l) => l.id)).toEqual([b.id]);
    const second = await client.beta.libraries.list({ pageSize: 1, pageToken: first.nextPageToken });
    expect(second.data.map((l) => l.id)).toEqual([a.id]);
    expect((await client.beta.libraries.list({ search: "PAGE B" })).data.map((l) => l.id)).toEqual([b.id]);
  });

  it("deletes, answering the deleted library; a later get is an SDKError 404", async () => {
    const library = await client.beta.libraries.create({ name: "doomed" });
    expect(await client.beta.libraries.delete({ libraryId: library.id })).toMatchObject({ id: library.id, name: "doomed" });
    expect((await errorOf(client.beta.libraries.get({ libraryId: library.id }), SDKError)).statusCode).toBe(404);
  });

  it("rejects a bad body with HTTPValidationError", async () => {
    const error = await errorOf(client.beta.libraries.create({ name: "x", chunkSize: 5 }), HTTPValidationError);
    expect(error.detail?.[0]?.loc).toEqual(["body", "chunk_size"]);
  });
});

describe("client.beta.libraries.accesses: updateOrCreate PUT /v1/libraries/{library_id}/share, list GET /v1/libraries/{library_id}/share, delete DELETE /v1/libraries/{library_id}/share", () => {
  it("shares with another workspace, lists the accesses, and unshares, each answer in the SDK's Sharing type", async () => {
    const library = await client.beta.libraries.create({ name: "shared by the SDK" });
    expect((await errorOf(colleagueClient.beta.libraries.get({ libraryId: library.id }), SDKError)).statusCode).toBe(404);

    const sharing = await client.beta.libraries.accesses.updateOrCreate({ libraryId: library.id, sharingRequest: { level: "Viewer", shareWithUuid: colleague.caller.workspace, shareWithType: "Workspace" } });
    expect(sharing).toEqual({ libraryId: library.id, userId: null, orgId: tenant.caller.organization, role: "Viewer", shareWithType: "Workspace", shareWithUuid: colleague.caller.workspace });
    expect(await colleagueClient.beta.libraries.get({ libraryId: library.id })).toMatchObject({ id: library.id, explicitWorkspaceMembersCount: 1 });
    expect((await colleagueClient.beta.libraries.list()).data.map((l) => l.id)).toContain(library.id);

    const accesses = await client.beta.libraries.accesses.list({ libraryId: library.id });
    expect(accesses.data.map((a) => [a.role, a.shareWithType, a.shareWithUuid])).toEqual([
      ["Owner", "Workspace", tenant.caller.workspace],
      ["Viewer", "Workspace", colleague.caller.workspace],
    ]);

    const removed = await client.beta.libraries.accesses.delete({ libraryId: library.id, sharingDelete: { shareWithUuid: colleague.caller.workspace, shareWithType: "Workspace" } });
    expect(removed).toMatchObject({ role: "Viewer", shareWithUuid: colleague.caller.workspace });
    expect((await errorOf(colleagueClient.beta.libraries.get({ libraryId: library.id }), SDKError)).statusCode).toBe(404);
  });

  it("a Viewer may not change the library: an SDKError 403", async () => {
    const library = await client.beta.libraries.create({ name: "read only" });
    await client.beta.libraries.accesses.updateOrCreate({ libraryId: library.id, sharingRequest: { level: "Viewer", shareWithUuid: colleague.caller.principal, shareWithType: "User" } });
    const error = await errorOf(colleagueClient.beta.libraries.update({ libraryId: library.id, updateLibraryRequest: { name: "no" } }), SDKError);
    expect(error.statusCode).toBe(403);
  });
});

