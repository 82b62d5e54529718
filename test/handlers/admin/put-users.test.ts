import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/admin/put-users.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aMemberItem, aUserItem, aUserRecord, aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const put = (id: string, members: unknown[]) =>
  aJsonEvent({ members }, { method: "PATCH", path: `/v1/admin/workspaces/${id}/users`, resource: "/v1/admin/workspaces/{workspace_uuid}/users", pathParameters: { workspace_uuid: id }, caller: admin });

const ws = aWorkspaceRecord({ organization: admin.organization, membersCount: 2 });
const [owner, member, newcomer] = [0, 1, 2].map(() => aUserRecord({ organization: admin.organization })) as [ReturnType<typeof aUserRecord>, ReturnType<typeof aUserRecord>, ReturnType<typeof aUserRecord>];
const served = () =>
  serveTenancyTable(dynamo, [
    aWorkspaceItem(ws),
    ...[owner, member, newcomer].map(aUserItem),
    aMemberItem({ organization: ws.organization, workspace: ws.id, user: owner.id, roles: ["workspace_admin"] }),
    aMemberItem({ organization: ws.organization, workspace: ws.id, user: member.id, roles: ["user"] }),
  ]);
const rolesOf = (table: ReturnType<typeof served>, user: string) => table.items("tenancy").find((i) => i.sk === `MEMBER#${user}`)?.roles;

describe("PATCH /v1/admin/workspaces/{workspace_uuid}/users", () => {
  it("adds new members and changes members' roles, counting each", async () => {
    const table = served();

    const response = await invoke(handler, put(ws.id, [{ user_uuid: member.id, role_names: ["contributor"] }, { user_uuid: newcomer.id, roles: ["A"] }]));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ added_members_count: 1, updated_members_count: 1 });
    expect(rolesOf(table, member.id)).toStrictEqual(["contributor"]);
    expect(rolesOf(table, newcomer.id)).toStrictEqual(["workspace_admin"]);
    expect(table.items("tenancy").find((i) => i.id === ws.id)!.membersCount).toBe(3);
  });

  it("does not count a member whose roles stay the same", async () => {
    served();

    const response = await invoke(handler, put(ws.id, [{ user_uuid: member.id, role_name: "user" }]));

    expect(response.json).toStrictEqual({ added_members_count: 0, updated_members_count: 0 });
  });

  it("refuses with 409 last_admin to take the role from the only workspace_admin, and changes nothing", async () => {
    const table = served();

    const response = await invoke(handler, put(ws.id, [{ user_uuid: owner.id, role_names: ["user"] }, { user_uuid: member.id, role_names: ["billing"] }]));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ type: "conflict_error", code: "last_admin" });
    expect(rolesOf(table, owner.id)).toStrictEqual(["workspace_admin"]);
    expect(rolesOf(table, member.id)).toStrictEqual(["user"]);
  });

  it("lets the admin role move in one request", async () => {
    const table = served();

    const response = await invoke(handler, put(ws.id, [{ user_uuid: owner.id, role_names: ["user"] }, { user_uuid: member.id, role_names: ["workspace_admin"] }]));

    expect(response.json).toStrictEqual({ added_members_count: 0, updated_members_count: 2 });
    expect(rolesOf(table, member.id)).toStrictEqual(["workspace_admin"]);
  });

  it("answers 422 for role_name and role together", async () => {
    const response = await invoke(handler, put(ws.id, [{ user_uuid: member.id, role_name: "user", role: "M" }]));

    expect(response.statusCode).toBe(422);
  });
});
