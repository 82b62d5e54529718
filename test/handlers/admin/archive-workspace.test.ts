import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/admin/archive-workspace.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const now = freezeDate("2025-06-01T12:00:00.000Z");
const remove = (id: string) =>
  anEvent({ method: "DELETE", path: `/v1/admin/workspaces/${id}`, resource: "/v1/admin/workspaces/{workspace_uuid}", pathParameters: { workspace_uuid: id }, caller: admin });
const stored = (table: ReturnType<typeof serveTenancyTable>, id: string) => table.items("tenancy").find((i) => i.id === id)!;

describe("DELETE /v1/admin/workspaces/{workspace_uuid}", () => {
  it("archives the workspace and answers 204 with no body", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization });
    const table = serveTenancyTable(dynamo, [aWorkspaceItem(ws)]);

    const response = await invoke(handler, remove(ws.id));

    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(stored(table, ws.id)).toMatchObject({ archivedAt: now, name: ws.name });
  });

  it("keeps the first archiving time when archived again", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization, archivedAt: "2025-01-02T00:00:00.000Z" });
    const table = serveTenancyTable(dynamo, [aWorkspaceItem(ws)]);

    expect((await invoke(handler, remove(ws.id))).statusCode).toBe(204);
    expect(stored(table, ws.id).archivedAt).toBe("2025-01-02T00:00:00.000Z");
  });

  it("refuses the default workspace with 400 default_workspace", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization, isDefault: true });
    const table = serveTenancyTable(dynamo, [aWorkspaceItem(ws)]);

    const response = await invoke(handler, remove(ws.id));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ object: "error", code: "default_workspace", param: "workspace_uuid" });
    expect(stored(table, ws.id).archivedAt).toBeNull();
  });

  it("answers 404 for another organization's workspace", async () => {
    const foreign = aWorkspaceRecord();
    const table = serveTenancyTable(dynamo, [aWorkspaceItem(foreign)]);

    expect((await invoke(handler, remove(foreign.id))).statusCode).toBe(404);
    expect(stored(table, foreign.id).archivedAt).toBeNull();
  });
});
