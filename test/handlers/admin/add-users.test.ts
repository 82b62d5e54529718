import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/admin/add-users.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { WORKSPACE_ROLES } from "../../../shared/domain/identity/roles.js";
import { WORKSPACE_ROLE_NAME_VALUES, WORKSPACE_ROLE_UUID_VALUES } from "../../../shared/schemas/workspace.js";
import { aMemberItem, aUserItem, aUserRecord, aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const add = (id: string, members: unknown[]) =>
  aJsonEvent({ members }, { method: "POST", path: `/v1/admin/workspaces/${id}/add-users`, resource: "/v1/admin/workspaces/{workspace_uuid}/add-users", pathParameters: { workspace_uuid: id }, caller: admin });

function aWorkspaceWithUsers(count: number) {
  const ws = aWorkspaceRecord({ organization: admin.organization, membersCount: 0 });
  const users = Array.from({ length: count }, () => aUserRecord({ organization: admin.organization }));
  return { ws, users, items: [aWorkspaceItem(ws), ...users.map(aUserItem)] };
}

const members = (table: ReturnType<typeof serveTenancyTable>) =>
  Object.fromEntries(table.items("tenancy").filter((i) => String(i.sk).startsWith("MEMBER#")).map((m) => [m.user, m.roles]));

describe("POST /v1/admin/workspaces/{workspace_uuid}/add-users", () => {
  it("adds each user with its roles in any spelling, `user` when none is given, and counts them", async () => {
    const { ws, users, items } = aWorkspaceWithUsers(4);
    const table = serveTenancyTable(dynamo, items);

    const response = await invoke(
      handler,
      add(ws.id, [
        { user_uuid: users[0]!.id, role_names: ["workspace_admin", "billing"] },
        { user_uuid: users[1]!.id, roles: ["M"] },
        { user_uuid: users[2]!.id, role: "ff86d432-7f27-47f8-b02f-b5c102ef6a55" },
        { user_uuid: users[3]!.id },
      ]),
    );

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ added_members_count: 4 });
    expect(members(table)).toStrictEqual({
      [users[0]!.id]: ["workspace_admin", "billing"],
      [users[1]!.id]: ["user"],
      [users[2]!.id]: ["observability_viewer"],
      [users[3]!.id]: ["user"],
    });
    expect(table.items("tenancy").find((i) => i.id === ws.id)!.membersCount).toBe(4);
  });

  it("leaves a member's roles alone and does not count it", async () => {
    const { ws, users, items } = aWorkspaceWithUsers(1);
    const table = serveTenancyTable(dynamo, [...items, aMemberItem({ organization: admin.organization, workspace: ws.id, user: users[0]!.id, roles: ["workspace_admin"] })]);

    const response = await invoke(handler, add(ws.id, [{ user_uuid: users[0]!.id, role_names: ["user"] }]));

    expect(response.json).toStrictEqual({ added_members_count: 0 });
    expect(members(table)).toStrictEqual({ [users[0]!.id]: ["workspace_admin"] });
  });

  it("answers 404 user_not_found for a user of no organization of the caller, before adding anyone", async () => {
    const { ws, users, items } = aWorkspaceWithUsers(1);
    const table = serveTenancyTable(dynamo, items);

    const response = await invoke(handler, add(ws.id, [{ user_uuid: users[0]!.id }, { user_uuid: crypto.randomUUID() }]));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ code: "user_not_found", param: "members" });
    expect(members(table)).toStrictEqual({});
  });

  it("answers 422 for an unknown role name", async () => {
    const response = await invoke(handler, add(crypto.randomUUID(), [{ user_uuid: crypto.randomUUID(), role_names: ["owner"] }]));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "members", 0, "role_names", 0]);
  });

  it("takes exactly the role names and static UUIDs of the role table", () => {
    expect(WORKSPACE_ROLE_NAME_VALUES).toStrictEqual(WORKSPACE_ROLES.map((r) => r.name));
    expect(WORKSPACE_ROLE_UUID_VALUES).toStrictEqual(WORKSPACE_ROLES.map((r) => r.uuid));
  });
});
