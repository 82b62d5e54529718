import { randomUUID } from "node:crypto";
import { QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as create } from "../../../functions/libraries/create.js";
import { handler as remove } from "../../../functions/libraries/delete.js";
import { handler as get } from "../../../functions/libraries/get.js";
import { handler as list } from "../../../functions/libraries/list.js";
import { handler as replace } from "../../../functions/libraries/replace.js";
import { handler as update } from "../../../functions/libraries/update.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aLibrary, headIn, libraryItems, serveBatchDeletes } from "../../support/library-items.js";

const dynamo = mockDynamo();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  serveBatchDeletes(dynamo, tables);
});

const caller = aCaller();
/** Another member of the same organization, in another workspace. */
const colleague = aCaller({ organization: caller.organization });
const stored = (overrides: Parameters<typeof aLibrary>[1] = {}, shares: Parameters<typeof libraryItems>[1] = [], who = caller) => {
  const library = aLibrary(who, overrides);
  tables.put("libraries", ...libraryItems(library, shares));
  return library;
};
const at = (id: string) => `/v1/libraries/${id}`;

describe("POST /v1/libraries", () => {
  it("answers 201 with every field the SDK's Library requires, owned by the workspace by default", async () => {
    const response = await invoke(create, aJsonEvent({ name: "Handbook", description: "HR docs", chunk_size: 1024 }, { path: "/v1/libraries", caller }));

    expect(response.statusCode).toBe(201);
    expect(response.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Handbook",
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      owner_id: caller.workspace,
      owner_type: "Workspace",
      total_size: 0,
      nb_documents: 0,
      chunk_size: 1024,
      emoji: null,
      description: "HR docs",
      generated_description: null,
      explicit_user_members_count: 0,
      explicit_workspace_members_count: 0,
      org_sharing_role: null,
      generated_name: null,
    });
  });

  it("writes the head, the owner's access and its grantee entry in one transaction", async () => {
    const response = await invoke(create, aJsonEvent({ name: "Mine", owner_type: "User" }, { path: "/v1/libraries", caller }));
    const id = response.json.id as string;

    const [write] = dynamo.commandCalls(TransactWriteCommand);
    const keys = write!.args[0].input.TransactItems!.map((t) => ({ pk: t.Put!.Item!.pk, sk: t.Put!.Item!.sk }));
    expect(keys).toEqual([
      { pk: `ORG#${caller.organization}#LIB#${id}`, sk: "LIBRARY" },
      { pk: `ORG#${caller.organization}#LIB#${id}`, sk: `ACCESS#User#${caller.principal}` },
      { pk: `ORG#${caller.organization}#GRANTEE#User#${caller.principal}`, sk: `LIB#${id}` },
    ]);
    expect(response.json).toMatchObject({ owner_type: "User", owner_id: caller.principal });
  });

  it("answers 422 with detail for a missing name or a chunk size out of range", async () => {
    const missing = await invoke(create, aJsonEvent({ description: "x" }, { path: "/v1/libraries", caller }));
    expect(missing.statusCode).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(["body", "name"]);
    const small = await invoke(create, aJsonEvent({ name: "x", chunk_size: 10 }, { path: "/v1/libraries", caller }));
    expect(small.statusCode).toBe(422);
    expect(small.json.detail[0].loc).toEqual(["body", "chunk_size"]);
  });

  it("answers 403 to a key without libraries:write", async () => {
    const reader = aCaller({ roles: ["observability_viewer"] });
    expect((await invoke(create, aJsonEvent({ name: "x" }, { path: "/v1/libraries", caller: reader }))).statusCode).toBe(403);
  });
});

describe("GET /v1/libraries/{library_id}", () => {
  const read = (id: string, who = caller) => anEvent({ path: at(id), pathParameters: { library_id: id }, caller: who });

  it("answers the library its workspace owns", async () => {
    const library = stored({ name: "Policies" });
    const response = await invoke(get, read(library.id));
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: library.id, name: "Policies", owner_type: "Workspace" });
  });

  it("answers 404 for another workspace's library that is not shared with the caller, and for an unknown id", async () => {
    const library = stored();
    expect((await invoke(get, read(library.id, colleague))).statusCode).toBe(404);
    expect((await invoke(get, read(randomUUID()))).statusCode).toBe(404);
    expect((await invoke(get, read(library.id, aCaller()))).json).toMatchObject({ type: "not_found_error", code: "library_not_found" });
  });

  it("answers a library shared with the caller's workspace, user or organization", async () => {
    const viaWorkspace = stored({}, [{ type: "Workspace", id: colleague.workspace, role: "Viewer" }]);
    const viaUser = stored({}, [{ type: "User", id: colleague.principal, role: "Viewer" }]);
    const viaOrg = stored({}, [{ type: "Org", id: caller.organization, role: "Viewer" }]);
    for (const library of [viaWorkspace, viaUser, viaOrg]) expect((await invoke(get, read(library.id, colleague))).statusCode).toBe(200);
  });

  it("answers 422 for an id that is not a UUID", async () => {
    expect((await invoke(get, read("not-a-uuid"))).statusCode).toBe(422);
  });
});

describe("PATCH /v1/libraries/{library_id} and PUT /v1/libraries/{library_id}", () => {
  const patch = (id: string, body: unknown, who = caller, method = "PATCH") => aJsonEvent(body, { method, path: at(id), pathParameters: { library_id: id }, caller: who });

  it("changes name and description, keeping what the body leaves out", async () => {
    const library = stored({ description: "old" });
    const response = await invoke(update, patch(library.id, { name: "Renamed" }));
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ name: "Renamed", description: "old" });
    expect(headIn(tables, library)).toMatchObject({ name: "Renamed", description: "old" });
    expect(response.json.updated_at).not.toBe(library.updatedAt);
  });

  it("the deprecated PUT does the same", async () => {
    const library = stored();
    const response = await invoke(replace, patch(library.id, { description: "new" }, caller, "PUT"));
    expect(response.statusCode).toBe(200);
    expect(headIn(tables, library)).toMatchObject({ name: library.name, description: "new" });
  });

  it("lets an Editor change it, refuses a Viewer with 403, and hides it (404) from a caller without access", async () => {
    const editable = stored({}, [{ type: "User", id: colleague.principal, role: "Editor" }]);
    const readable = stored({}, [{ type: "User", id: colleague.principal, role: "Viewer" }]);
    const hidden = stored();
    expect((await invoke(update, patch(editable.id, { name: "by editor" }, colleague))).statusCode).toBe(200);
    const refused = await invoke(update, patch(readable.id, { name: "by viewer" }, colleague));
    expect(refused.statusCode).toBe(403);
    expect(refused.json.code).toBe("library_access_denied");
    expect((await invoke(update, patch(hidden.id, { name: "x" }, colleague))).statusCode).toBe(404);
    expect(headIn(tables, readable)!.name).toBe("Handbook");
  });

  it("answers 404 when the library is deleted between the read and the write", async () => {
    const library = stored();
    dynamo.on(UpdateCommand).rejects(new (await import("@aws-sdk/client-dynamodb")).ConditionalCheckFailedException({ message: "gone", $metadata: {} }));
    expect((await invoke(update, patch(library.id, { name: "x" }))).statusCode).toBe(404);
  });
});

describe("DELETE /v1/libraries/{library_id}", () => {
  const del = (id: string, who = caller) => anEvent({ method: "DELETE", path: at(id), pathParameters: { library_id: id }, caller: who });

  it("answers 200 with the deleted library and removes its partition and every grantee entry", async () => {
    const library = stored({}, [{ type: "User", id: colleague.principal, role: "Editor" }, { type: "Org", id: caller.organization, role: "Viewer" }]);
    const kept = stored();
    const response = await invoke(remove, del(library.id));
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: library.id, name: library.name });
    expect(tables.items("libraries").filter((i) => String(i.pk).includes(library.id) || i.libraryId === library.id)).toEqual([]);
    expect(headIn(tables, kept)).toBeDefined();
  });

  it("is the owner's: an Editor gets 403 and the library stays", async () => {
    const library = stored({}, [{ type: "User", id: colleague.principal, role: "Editor" }]);
    expect((await invoke(remove, del(library.id, colleague))).statusCode).toBe(403);
    expect(headIn(tables, library)).toBeDefined();
  });

  it("answers 404 for another workspace's library, and after it is deleted", async () => {
    const library = stored();
    expect((await invoke(remove, del(library.id, colleague))).statusCode).toBe(404);
    await invoke(remove, del(library.id));
    expect((await invoke(remove, del(library.id))).statusCode).toBe(404);
  });
});

describe("GET /v1/libraries", () => {
  const page = (query: Record<string, string> = {}, who = caller) => anEvent({ path: "/v1/libraries", query, caller: who });
  const day = (n: number) => `2026-01-${String(n).padStart(2, "0")}T00:00:00.000Z`;

  it("lists the caller's own, its workspace's and the organization's libraries newest first, each once, never others'", async () => {
    const own = stored({ ownerType: "User", ownerId: colleague.principal, createdAt: day(1) }, [], colleague);
    const ofWorkspace = stored({ createdAt: day(2) }, [], colleague);
    const shared = stored({ createdAt: day(3) }, [{ type: "User", id: colleague.principal, role: "Viewer" }, { type: "Workspace", id: colleague.workspace, role: "Editor" }]);
    const org = stored({ createdAt: day(4) }, [{ type: "Org", id: caller.organization, role: "Viewer" }]);
    stored({ createdAt: day(5) });
    stored({ createdAt: day(6) }, [], aCaller());

    const response = await invoke(list, page({}, colleague));
    expect(response.statusCode).toBe(200);
    expect(response.json.data.map((l: { id: string }) => l.id)).toEqual([org.id, shared.id, ofWorkspace.id, own.id]);
    expect(response.json).toMatchObject({ pagination: null, next_page_token: null });
  });

  it("reads the grantee partitions on the byCreated index, never a Scan", async () => {
    await invoke(list, page());
    const queries = dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries.map((q) => q.IndexName)).toEqual(["byCreated", "byCreated", "byCreated"]);
    expect(queries.map((q) => q.ExpressionAttributeValues![":pk"])).toEqual([
      `ORG#${caller.organization}#GRANTEE#User#${caller.principal}`,
      `ORG#${caller.organization}#GRANTEE#Workspace#${caller.workspace}`,
      `ORG#${caller.organization}#GRANTEE#Org#${caller.organization}`,
    ]);
  });

  it("pages with next_page_token, and by the deprecated page number", async () => {
    const made = [1, 2, 3, 4, 5].map((n) => stored({ createdAt: day(n) }));
    const first = await invoke(list, page({ page_size: "2" }));
    expect(first.json.data.map((l: { id: string }) => l.id)).toEqual([made[4]!.id, made[3]!.id]);
    const second = await invoke(list, page({ page_size: "2", page_token: first.json.next_page_token }));
    expect(second.json.data.map((l: { id: string }) => l.id)).toEqual([made[2]!.id, made[1]!.id]);
    const third = await invoke(list, page({ page_size: "2", page_token: second.json.next_page_token }));
    expect(third.json.data.map((l: { id: string }) => l.id)).toEqual([made[0]!.id]);
    expect(third.json.next_page_token).toBeNull();
    const byNumber = await invoke(list, page({ page_size: "2", page: "1" }));
    expect(byNumber.json.data.map((l: { id: string }) => l.id)).toEqual([made[2]!.id, made[1]!.id]);
  });

  it("merges partitions correctly across rounds when one holds more than a round", async () => {
    const many = Array.from({ length: 120 }, (_, i) => stored({ createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }));
    const orgShared = stored({ createdAt: new Date(Date.UTC(2026, 0, 1, 0, 10, 30)).toISOString() }, [{ type: "Org", id: caller.organization, role: "Viewer" }], aCaller({ organization: caller.organization }));
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const response = await invoke(list, page({ page_size: "50", ...(token ? { page_token: token } : {}) }));
      ids.push(...response.json.data.map((l: { id: string }) => l.id));
      token = response.json.next_page_token ?? undefined;
    } while (token);
    const expected = [...many, orgShared].toSorted((a, b) => (a.createdAt < b.createdAt ? 1 : -1)).map((l) => l.id);
    expect(ids).toEqual(expected);
  });

  it("searches names case-insensitively and filters to the libraries the caller owns", async () => {
    stored({ name: "HR Handbook", createdAt: day(1) });
    const mine = stored({ name: "handbook v2", ownerType: "User", ownerId: caller.principal, createdAt: day(2) });
    stored({ name: "Finance", createdAt: day(3) });
    stored({ name: "Handbook (shared)", createdAt: day(4) }, [{ type: "User", id: caller.principal, role: "Editor" }], aCaller({ organization: caller.organization }));
    const found = await invoke(list, page({ search: "HANDBOOK" }));
    expect(found.json.data.map((l: { name: string }) => l.name)).toEqual(["Handbook (shared)", "handbook v2", "HR Handbook"]);
    // Owned: the caller's level is Owner, its own libraries and its workspace's; not the one shared with it as Editor.
    const owned = await invoke(list, page({ search: "handbook", filter_owned_by_me: "true" }));
    expect(owned.json.data.map((l: { name: string }) => l.name)).toEqual([mine.name, "HR Handbook"]);
  });

  it("answers 422 for a page token it did not issue", async () => {
    const response = await invoke(list, page({ page_token: "garbage" }));
    expect(response.statusCode).toBe(422);
  });
});
