import { PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler as create } from "../../../functions/service-accounts/create.js";
import { handler as remove } from "../../../functions/service-accounts/delete.js";
import { handler as list } from "../../../functions/service-accounts/list.js";
import { handler as retrieve } from "../../../functions/service-accounts/retrieve.js";
import { handler as update } from "../../../functions/service-accounts/update.js";
import type { Caller } from "../../../shared/domain/caller.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aKeyOf, aMembershipItem, anAdminOfItsWorkspace, aServiceAccount, aServiceAccountItem, aWorkspaceItem, wireOf } from "./tenancy-items.js";

const dynamo = mockDynamo({ resolves: {} });
const NOW = freezeDate("2026-03-01T12:00:00.000Z");

/** A workspace admin, its workspace and another workspace of the organization, with `items` besides. */
function world(items: Record<string, unknown>[] = [], caller: Caller = anAdminOfItsWorkspace()) {
  const other = crypto.randomUUID();
  const tables = serveTables(
    dynamo,
    { tenancy: [aWorkspaceItem(caller.organization, caller.workspace), aWorkspaceItem(caller.organization, other), ...items] },
    { writes: true },
  );
  return { caller, other, tables };
}

const accountIn = (caller: Caller, overrides: Parameters<typeof aServiceAccount>[0] = {}) =>
  aServiceAccount({ organization: caller.organization, workspace: caller.workspace, ...overrides });

const byId = (path: string, id: string, method: string, caller: Caller, body?: unknown) =>
  body === undefined
    ? anEvent({ method, path: `${path}/${id}`, pathParameters: { service_account_id: id }, caller })
    : aJsonEvent(body, { method, path: `${path}/${id}`, pathParameters: { service_account_id: id }, caller });

describe("GET /v1/service-accounts", () => {
  const listing = (caller: Caller, query: Record<string, string> = {}) => anEvent({ path: "/v1/service-accounts", query, caller });

  it("answers a workspace's live accounts, oldest first, from one query on the workspace index", async () => {
    const caller = anAdminOfItsWorkspace();
    const older = accountIn(caller, { createdAt: "2026-01-01T00:00:00.000Z" });
    const newer = accountIn(caller, { createdAt: "2026-02-01T00:00:00.000Z" });
    const gone = accountIn(caller, { deletedAt: "2026-02-02T00:00:00.000Z" });
    world([newer, older, gone].map(aServiceAccountItem), caller);

    const response = await invoke(list, listing(caller, { workspace_id: caller.workspace, offset: "0", limit: "10", include_deleted: "false" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ items: [wireOf(older), wireOf(newer)] });
    expect(dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([expect.objectContaining({ IndexName: "gsi1", ExpressionAttributeValues: { ":p": `WSSA#${caller.workspace}` } })]);
  });

  it("pages by offset and limit, and shows deleted accounts with include_deleted", async () => {
    const caller = anAdminOfItsWorkspace();
    const accounts = [1, 2, 3].map((n) => accountIn(caller, { createdAt: `2026-01-0${n}T00:00:00.000Z`, deletedAt: n === 2 ? NOW : null }));
    world(accounts.map(aServiceAccountItem), caller);

    const page = await invoke(list, listing(caller, { offset: "1", limit: "1", include_deleted: "true" }));

    expect(page.json.items.map((a: { id: string }) => a.id)).toEqual([accounts[1]!.id]);
    expect(page.json.items[0].deleted_at).toBe(NOW);
  });

  it("lists only the key's own workspace for a workspace admin who names none", async () => {
    const caller = anAdminOfItsWorkspace();
    const mine = accountIn(caller);
    const theirs = accountIn(caller, { workspace: crypto.randomUUID() });
    world([aServiceAccountItem(mine), aServiceAccountItem(theirs)], caller);

    const response = await invoke(list, listing(caller));

    expect(response.json.items.map((a: { id: string }) => a.id)).toEqual([mine.id]);
  });

  it("lists the whole organization for an organization admin who names no workspace", async () => {
    const caller = anAdminOfItsWorkspace({ roles: ["workspace_admin", "organization_admin"], admin: true });
    const mine = accountIn(caller, { createdAt: "2026-01-01T00:00:00.000Z" });
    const elsewhere = accountIn(caller, { workspace: crypto.randomUUID(), createdAt: "2026-01-02T00:00:00.000Z" });
    world([aServiceAccountItem(mine), aServiceAccountItem(elsewhere)], caller);

    const response = await invoke(list, listing(caller));

    expect(response.json.items.map((a: { id: string }) => a.id)).toEqual([mine.id, elsewhere.id]);
  });

  it("refuses another workspace where the caller is no workspace_admin with 403, and an unknown one with 404", async () => {
    const caller = anAdminOfItsWorkspace();
    const { other } = world([], caller);

    const refused = await invoke(list, listing(caller, { workspace_id: other }));
    const unknown = await invoke(list, listing(caller, { workspace_id: crypto.randomUUID() }));

    expect(refused.statusCode).toBe(403);
    expect(refused.json).toMatchObject({ type: "permission_error", code: "missing_permission" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json.code).toBe("workspace_not_found");
  });

  it("lets a user list another workspace where its membership holds workspace_admin", async () => {
    const caller = anAdminOfItsWorkspace();
    const other = crypto.randomUUID();
    const theirs = accountIn(caller, { workspace: other });
    serveTables(dynamo, {
      tenancy: [aWorkspaceItem(caller.organization, caller.workspace), aWorkspaceItem(caller.organization, other), aMembershipItem(caller.organization, other, caller.principal, ["workspace_admin"]), aServiceAccountItem(theirs)],
    });

    const response = await invoke(list, listing(caller, { workspace_id: other }));

    expect(response.statusCode).toBe(200);
    expect(response.json.items.map((a: { id: string }) => a.id)).toEqual([theirs.id]);
  });

  it("answers 422 for a negative offset or a limit of 0", async () => {
    const caller = anAdminOfItsWorkspace();
    world([], caller);

    expect((await invoke(list, listing(caller, { offset: "-1" }))).json.detail[0].loc).toEqual(["query", "offset"]);
    expect((await invoke(list, listing(caller, { limit: "0" }))).json.detail[0].loc).toEqual(["query", "limit"]);
  });

  it("refuses a key whose roles lack service-accounts:manage with 403 before any read", async () => {
    const response = await invoke(list, listing(anAdminOfItsWorkspace({ roles: ["workspace_contributor"] })));

    expect(response.statusCode).toBe(403);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

describe("POST /v1/service-accounts", () => {
  const creating = (caller: Caller, body: unknown) => aJsonEvent(body, { path: "/v1/service-accounts", caller });

  it("answers 201 with the account, all nine fields, and no roles yet", async () => {
    const { caller, tables } = world();

    const response = await invoke(create, creating(caller, { name: "ci", workspace_id: caller.workspace, description: "deploys" }));

    expect(response.statusCode).toBe(201);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toStrictEqual({
      id: expect.any(String),
      name: "ci",
      customer_id: caller.organization,
      organization_id: caller.organization,
      workspace_id: caller.workspace,
      description: "deploys",
      created_at: NOW,
      updated_at: NOW,
      deleted_at: null,
    });
    const stored = tables.items("tenancy").find((i) => i.sk === `SA#${response.json.id}`);
    expect(stored).toMatchObject({ pk: `ORG#${caller.organization}`, gsi1pk: `WSSA#${caller.workspace}`, roles: [] });
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input.ConditionExpression).toBe("attribute_not_exists(pk)");
  });

  it("creates in another workspace for an organization admin", async () => {
    const caller = anAdminOfItsWorkspace({ admin: true, roles: ["organization_admin"] });
    const { other } = world([], caller);

    const response = await invoke(create, creating(caller, { name: "ci", workspace_id: other }));

    expect(response.statusCode).toBe(201);
    expect(response.json.workspace_id).toBe(other);
  });

  it("refuses another workspace with 403, and writes nothing", async () => {
    const { caller, other } = world();

    const response = await invoke(create, creating(caller, { name: "ci", workspace_id: other }));

    expect(response.statusCode).toBe(403);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it("answers 404 for a workspace of another organization", async () => {
    const { caller } = world();
    const stranger = anAdminOfItsWorkspace();
    serveTables(dynamo, { tenancy: [aWorkspaceItem(stranger.organization, stranger.workspace)] });

    expect((await invoke(create, creating(caller, { name: "ci", workspace_id: stranger.workspace }))).statusCode).toBe(404);
  });

  it("answers 409 for an archived workspace", async () => {
    const caller = anAdminOfItsWorkspace();
    serveTables(dynamo, { tenancy: [aWorkspaceItem(caller.organization, caller.workspace, { archivedAt: NOW })] });

    const response = await invoke(create, creating(caller, { name: "ci", workspace_id: caller.workspace }));

    expect(response.statusCode).toBe(409);
    expect(response.json.code).toBe("workspace_archived");
  });

  it("answers 422 for a missing name or workspace_id, and for unknown fields", async () => {
    const { caller } = world();

    const missing = await invoke(create, creating(caller, {}));
    const extra = await invoke(create, creating(caller, { name: "ci", workspace_id: caller.workspace, role_ids: [] }));

    expect(missing.statusCode).toBe(422);
    expect(missing.json.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ["body", "name"],
      ["body", "workspace_id"],
    ]);
    expect(extra.json.detail).toEqual([{ loc: ["body", "role_ids"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
  });
});

describe("GET /v1/service-accounts/{service_account_id}", () => {
  it("answers the account, deleted or not", async () => {
    const caller = anAdminOfItsWorkspace();
    const gone = accountIn(caller, { deletedAt: NOW });
    world([aServiceAccountItem(gone)], caller);

    const response = await invoke(retrieve, byId("/v1/service-accounts", gone.id, "GET", caller));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual(wireOf(gone));
  });

  it("answers 404 for an unknown id or another organization's account, 403 for another workspace's", async () => {
    const caller = anAdminOfItsWorkspace();
    const stranger = aServiceAccount();
    const { other } = world([aServiceAccountItem(stranger)], caller);
    const neighbour = accountIn(caller, { workspace: other });
    serveTables(dynamo, { tenancy: [aWorkspaceItem(caller.organization, other), aServiceAccountItem(stranger), aServiceAccountItem(neighbour)] });

    expect((await invoke(retrieve, byId("/v1/service-accounts", crypto.randomUUID(), "GET", caller))).json.code).toBe("service_account_not_found");
    expect((await invoke(retrieve, byId("/v1/service-accounts", stranger.id, "GET", caller))).statusCode).toBe(404);
    expect((await invoke(retrieve, byId("/v1/service-accounts", neighbour.id, "GET", caller))).statusCode).toBe(403);
  });
});

describe("PATCH /v1/service-accounts/{service_account_id}", () => {
  it("changes the description and updated_at, on condition the account is live", async () => {
    const caller = anAdminOfItsWorkspace();
    const account = accountIn(caller);
    world([aServiceAccountItem(account)], caller);

    const response = await invoke(update, byId("/v1/service-accounts", account.id, "PATCH", caller, { description: "builds" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ ...wireOf(account), description: "builds", updated_at: NOW });
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input.ConditionExpression).toBe("attribute_exists(pk) AND deletedAt = :null");
  });

  it("clears the description with null, and writes nothing for an empty body", async () => {
    const caller = anAdminOfItsWorkspace();
    const account = accountIn(caller, { description: "old" });
    world([aServiceAccountItem(account)], caller);

    expect((await invoke(update, byId("/v1/service-accounts", account.id, "PATCH", caller, {}))).json.description).toBe("old");
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect((await invoke(update, byId("/v1/service-accounts", account.id, "PATCH", caller, { description: null }))).json.description).toBeNull();
  });

  it("answers 409 for a deleted account and 422 for a rename", async () => {
    const caller = anAdminOfItsWorkspace();
    const gone = accountIn(caller, { deletedAt: NOW });
    world([aServiceAccountItem(gone)], caller);

    const deleted = await invoke(update, byId("/v1/service-accounts", gone.id, "PATCH", caller, { description: "x" }));
    const rename = await invoke(update, byId("/v1/service-accounts", gone.id, "PATCH", caller, { name: "x" }));

    expect(deleted.statusCode).toBe(409);
    expect(deleted.json.code).toBe("service_account_deleted");
    expect(rename.statusCode).toBe(422);
  });
});

describe("DELETE /v1/service-accounts/{service_account_id}", () => {
  it("answers 204 with no body, sets deleted_at and revokes the account's keys", async () => {
    const caller = anAdminOfItsWorkspace();
    const account = accountIn(caller);
    const key = aKeyOf(account);
    const unrelated = aKeyOf(accountIn(caller));
    const { tables } = world([aServiceAccountItem(account), ...key.items, ...unrelated.items], caller);

    const response = await invoke(remove, byId("/v1/service-accounts", account.id, "DELETE", caller));

    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(response.headers?.["content-type"]).toBeUndefined();
    const held = tables.items("tenancy");
    expect(held.find((i) => i.sk === `SA#${account.id}`)).toMatchObject({ deletedAt: NOW, updatedAt: NOW });
    expect(held.find((i) => i.pk === `KEY#${key.record.hash}`)).toMatchObject({ revokedAt: NOW });
    expect(held.find((i) => i.pk === `KEY#${unrelated.record.hash}`)).toMatchObject({ revokedAt: null });
  });

  it("answers 409 for an account deleted already, 404 for an unknown one", async () => {
    const caller = anAdminOfItsWorkspace();
    const gone = accountIn(caller, { deletedAt: NOW });
    world([aServiceAccountItem(gone)], caller);

    expect((await invoke(remove, byId("/v1/service-accounts", gone.id, "DELETE", caller))).statusCode).toBe(409);
    expect((await invoke(remove, byId("/v1/service-accounts", crypto.randomUUID(), "DELETE", caller))).statusCode).toBe(404);
  });
});
