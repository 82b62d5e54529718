import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/admin/remove-users.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aMemberItem, aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const remove = (id: string, users: string[]) =>
  aJsonEvent(
    { members: users.map((user_uuid) => ({ user_uuid })) },
    { method: "DELETE", path: `/v1/admin/workspaces/${id}/remove-users`, resource: "/v1/admin/workspaces/{workspace_uuid}/remove-users", pathParameters: { workspace_uuid: id }, caller: admin },
  );

describe("DELETE /v1/admin/workspaces/{workspace_uuid}/remove-users", () => {
  it("removes members, and lists the last admin and the unknown users as not deleted", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization, membersCount: 2 });
    const [owner, member, unknown] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const table = serveTenancyTable(dynamo, [
      aWorkspaceItem(ws),
      aMemberItem({ organization: ws.organization, workspace: ws.id, user: owner, roles: ["workspace_admin"] }),
      aMemberItem({ organization: ws.organization, workspace: ws.id, user: member, roles: ["user"] }),
    ]);

    const response = await invoke(handler, remove(ws.id, [member, owner, unknown]));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ deleted_members_count: 1, not_deleted_members: [owner, unknown] });
    expect(table.items("tenancy").filter((i) => String(i.sk).startsWith("MEMBER#")).map((i) => i.user)).toStrictEqual([owner]);
    expect(table.items("tenancy").find((i) => i.id === ws.id)!.membersCount).toBe(1);
  });

  it("answers an empty not_deleted_members when every member went", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization, membersCount: 1 });
    const member = crypto.randomUUID();
    serveTenancyTable(dynamo, [aWorkspaceItem(ws), aMemberItem({ organization: ws.organization, workspace: ws.id, user: member, roles: ["user"] })]);

    const response = await invoke(handler, remove(ws.id, [member]));

    expect(response.json).toStrictEqual({ deleted_members_count: 1, not_deleted_members: [] });
  });

  it("answers 404 for another organization's workspace", async () => {
    const foreign = aWorkspaceRecord();
    serveTenancyTable(dynamo, [aWorkspaceItem(foreign)]);

    expect((await invoke(handler, remove(foreign.id, [crypto.randomUUID()]))).statusCode).toBe(404);
  });

  it("answers 422 without members", async () => {
    const response = await invoke(handler, aJsonEvent({}, { method: "DELETE", path: `/v1/admin/workspaces/x/remove-users`, resource: "/v1/admin/workspaces/{workspace_uuid}/remove-users", pathParameters: { workspace_uuid: crypto.randomUUID() }, caller: admin }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "members"]);
  });
});
