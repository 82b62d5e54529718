import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/admin/create-workspace.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aUserItem, aUserRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const admin = aCaller({ admin: true, roles: ["organization_admin"], principalType: "service_account" });
const create = (body: unknown, caller = admin) => aJsonEvent(body, { method: "POST", path: "/v1/admin/workspaces", caller });
const userOf = (overrides = {}) => aUserRecord({ organization: admin.organization, ...overrides });

describe("POST /v1/admin/workspaces", () => {
  it("answers 200 (not 201) with the workspace, its admin counted and raw_roles A for an admin key", async () => {
    const owner = userOf();
    serveTenancyTable(dynamo, [aUserItem(owner)]);

    const response = await invoke(handler, create({ name: "Product Team", admin_user_id: owner.id, icon: "🚀" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      uuid: expect.any(String),
      name: "Product Team",
      description: "",
      icon: "🚀",
      members_count: 1,
      groups_count: null,
      spend_limit: null,
      is_default: false,
      is_archived: false,
      raw_roles: ["A"],
      raw_role: "A",
    });
  });

  it("makes admin_user_id its workspace_admin and, with add_all_org_members, every other user a user", async () => {
    const [owner, other] = [userOf(), userOf()];
    const table = serveTenancyTable(dynamo, [aUserItem(owner), aUserItem(other)]);

    const response = await invoke(handler, create({ name: "All", admin_user_id: owner.id, add_all_org_members: true }));

    const members = table.items("tenancy").filter((i) => String(i.sk).startsWith("MEMBER#"));
    expect(members.map((m) => [m.user, m.roles])).toStrictEqual([
      [owner.id, ["workspace_admin"]],
      [other.id, ["user"]],
    ]);
    expect(members.every((m) => m.pk === `WS#${response.json.uuid}` && m.organization === admin.organization)).toBe(true);
    expect(response.json.members_count).toBe(2);
  });

  it("answers 404 user_not_found for an admin_user_id of another organization", async () => {
    serveTenancyTable(dynamo, [aUserItem(aUserRecord())]);

    const response = await invoke(handler, create({ name: "X", admin_user_id: crypto.randomUUID() }));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ type: "not_found_error", code: "user_not_found", param: "admin_user_id" });
  });

  it("answers 422 for a missing name, a name over 255 characters or an icon over 2", async () => {
    for (const body of [{ admin_user_id: crypto.randomUUID() }, { name: "x".repeat(256), admin_user_id: crypto.randomUUID() }, { name: "x", icon: "abc", admin_user_id: crypto.randomUUID() }]) {
      const response = await invoke(handler, create(body));
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
    }
  });
});
