import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler as listAssignable } from "../../../functions/service-accounts/list-assignable-roles.js";
import { handler as listRoles } from "../../../functions/service-accounts/list-roles.js";
import { handler as setRoles } from "../../../functions/service-accounts/set-roles.js";
import type { Caller } from "../../../shared/domain/caller.js";
import { WORKSPACE_ROLES } from "../../../shared/domain/identity/roles.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { anAdminOfItsWorkspace, aServiceAccount, aServiceAccountItem, aWorkspaceItem } from "./tenancy-items.js";

const dynamo = mockDynamo({ resolves: {} });
const NOW = freezeDate("2026-03-01T12:00:00.000Z");

const ADMIN = "731eb2be-a74f-4070-b797-35bf7009e553";
const USER = "48436751-ee56-44bd-8a2d-712233977821";
const VIEWER = "ff86d432-7f27-47f8-b02f-b5c102ef6a55";

function anAccountServed(overrides: Parameters<typeof aServiceAccount>[0] = {}) {
  const caller = anAdminOfItsWorkspace();
  const account = aServiceAccount({ organization: caller.organization, workspace: caller.workspace, ...overrides });
  const tables = serveTables(dynamo, { tenancy: [aWorkspaceItem(caller.organization, caller.workspace), aServiceAccountItem(account)] }, { writes: true });
  return { caller, account, tables };
}

const rolesPath = (id: string) => `/v1/service-accounts/${id}/roles`;
const reading = (id: string, caller: Caller) => anEvent({ path: rolesPath(id), pathParameters: { service_account_id: id }, caller });
const replacing = (id: string, caller: Caller, body: unknown) => aJsonEvent(body, { method: "PUT", path: rolesPath(id), pathParameters: { service_account_id: id }, caller });

describe("GET /v1/service-accounts/{service_account_id}/roles", () => {
  it("answers the account's roles as their static UUIDs", async () => {
    const { caller, account } = anAccountServed({ roles: ["workspace_admin", "observability_viewer"] });

    const response = await invoke(listRoles, reading(account.id, caller));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ items: [{ role_id: ADMIN }, { role_id: VIEWER }] });
  });

  it("answers 404 for an account of another organization", async () => {
    const { account } = anAccountServed();

    expect((await invoke(listRoles, reading(account.id, anAdminOfItsWorkspace()))).statusCode).toBe(404);
  });
});

describe("PUT /v1/service-accounts/{service_account_id}/roles", () => {
  it("replaces the roles, taking any spelling once each, and answers them as static UUIDs", async () => {
    const { caller, account, tables } = anAccountServed({ roles: ["workspace_admin"] });

    const response = await invoke(setRoles, replacing(account.id, caller, { role_ids: ["observability_viewer", "M", USER, VIEWER] }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ items: [{ role_id: VIEWER }, { role_id: USER }] });
    expect(tables.items("tenancy").find((i) => i.sk === `SA#${account.id}`)).toMatchObject({ roles: ["observability_viewer", "user"], updatedAt: NOW });
  });

  it("clears the roles with an empty list", async () => {
    const { caller, account } = anAccountServed({ roles: ["user"] });

    expect((await invoke(setRoles, replacing(account.id, caller, { role_ids: [] }))).json).toStrictEqual({ items: [] });
  });

  it("answers 422 naming each unknown role, and writes nothing", async () => {
    const { caller, account } = anAccountServed();

    const response = await invoke(setRoles, replacing(account.id, caller, { role_ids: ["user", "organization_admin", "root"] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [["body", "role_ids", 1], "value_error"],
      [["body", "role_ids", 2], "value_error"],
    ]);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("answers 409 for a deleted account", async () => {
    const { caller, account } = anAccountServed({ deletedAt: "2026-02-01T00:00:00.000Z" });

    expect((await invoke(setRoles, replacing(account.id, caller, { role_ids: ["user"] }))).statusCode).toBe(409);
  });

  it("answers 422 without role_ids", async () => {
    const { caller, account } = anAccountServed();

    expect((await invoke(setRoles, replacing(account.id, caller, {}))).json.detail[0].loc).toEqual(["body", "role_ids"]);
  });
});

describe("GET /v1/service-accounts/assignable-roles", () => {
  const assignable = (caller: Caller, query: Record<string, string>) => anEvent({ path: "/v1/service-accounts/assignable-roles", query, caller });

  it("answers every workspace role with its static UUID, none custom", async () => {
    const { caller } = anAccountServed();

    const response = await invoke(listAssignable, assignable(caller, { workspace_id: caller.workspace }));

    expect(response.statusCode).toBe(200);
    expect(response.json.items).toHaveLength(WORKSPACE_ROLES.length);
    expect(response.json.items).toContainEqual({ uuid: ADMIN, name: "workspace_admin", description: expect.any(String), is_custom_role: false });
    expect(response.json.items.every((r: { is_custom_role: boolean }) => r.is_custom_role === false)).toBe(true);
  });

  it("answers 422 without workspace_id and 404 for an unknown workspace", async () => {
    const { caller } = anAccountServed();

    expect((await invoke(listAssignable, assignable(caller, {}))).json.detail[0].loc).toEqual(["query", "workspace_id"]);
    expect((await invoke(listAssignable, assignable(caller, { workspace_id: crypto.randomUUID() }))).statusCode).toBe(404);
  });
});
