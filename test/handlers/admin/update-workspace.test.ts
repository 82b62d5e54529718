import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/admin/update-workspace.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const patch = (id: string, body: unknown) =>
  aJsonEvent(body, { method: "PATCH", path: `/v1/admin/workspaces/${id}`, resource: "/v1/admin/workspaces/{workspace_uuid}", pathParameters: { workspace_uuid: id }, caller: admin });

describe("PATCH /v1/admin/workspaces/{workspace_uuid}", () => {
  it("changes the fields given, clears a null description, and answers the WorkspaceOUT", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization, description: "old", icon: "★", membersCount: 2 });
    serveTenancyTable(dynamo, [aWorkspaceItem(ws)]);

    const response = await invoke(handler, patch(ws.id, { name: "New", description: null }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ uuid: ws.id, name: "New", description: null, icon: "★", members_count: 2, groups_count: null, spend_limit: null, is_default: false, is_archived: false });
  });

  it("keeps the name when it is null", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization, name: "Kept" });
    serveTenancyTable(dynamo, [aWorkspaceItem(ws)]);

    const response = await invoke(handler, patch(ws.id, { name: null, icon: "x" }));

    expect(response.json).toMatchObject({ name: "Kept", icon: "x" });
  });

  it("keeps default_guardrails (an extension) with the schema's defaults, clears them with null, and refuses a malformed one", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization });
    const table = serveTenancyTable(dynamo, [aWorkspaceItem(ws)]);
    const stored = () => table.items("tenancy").find((item) => item.id === ws.id)?.defaultGuardrails;

    expect((await invoke(handler, patch(ws.id, { default_guardrails: [{ moderation_llm_v2: { action: "block" } }] }))).statusCode).toBe(200);
    expect(stored()).toStrictEqual([{ block_on_error: false, moderation_llm_v2: { model_name: "mistral-moderation-2603", ignore_other_categories: false, action: "block" } }]);

    expect((await invoke(handler, patch(ws.id, { default_guardrails: null }))).statusCode).toBe(200);
    expect(stored()).toBeNull();

    const refused = await invoke(handler, patch(ws.id, { default_guardrails: [{ moderation_llm_v1: { custom_category_thresholds: { pii: "high" } } }] }));
    expect(refused.statusCode).toBe(422);
    expect(refused.json.detail[0].loc).toStrictEqual(["body", "default_guardrails", 0, "moderation_llm_v1", "custom_category_thresholds", "pii"]);
  });

  it("answers 404 for a workspace of another organization and creates nothing", async () => {
    const foreign = aWorkspaceRecord();
    const table = serveTenancyTable(dynamo, [aWorkspaceItem(foreign)]);

    const response = await invoke(handler, patch(foreign.id, { name: "mine" }));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ type: "not_found_error", code: "workspace_not_found" });
    expect(table.items("tenancy")).toHaveLength(1);
  });
});
