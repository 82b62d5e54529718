import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/admin/list-workspaces.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";
import { aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const list = (query: Record<string, string> = {}, caller = admin) => anEvent({ method: "GET", path: "/v1/admin/workspaces", query, caller });
const ws = (name: string, overrides = {}) => aWorkspaceRecord({ organization: admin.organization, name, ...overrides });

describe("GET /v1/admin/workspaces", () => {
  it("answers the first page of 25 with the total, the default workspace first", async () => {
    const main = ws("Main", { isDefault: true, createdAt: "2025-02-01T00:00:00.000Z", membersCount: 3 });
    const lab = ws("Lab", { createdAt: "2025-01-01T00:00:00.000Z", spendLimit: { value: 100, currency: "USD", noMonthlyLimit: false } });
    serveTenancyTable(dynamo, [aWorkspaceItem(lab), aWorkspaceItem(main)]);

    const response = await invoke(handler, list());

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      object: "list",
      items: [
        { uuid: main.id, name: "Main", description: "", icon: "", members_count: 3, groups_count: null, spend_limit: null, is_default: true, is_archived: false },
        { uuid: lab.id, name: "Lab", description: "", icon: "", members_count: 0, groups_count: null, spend_limit: { value: 100, currency: "USD", no_monthly_limit: false }, is_default: false, is_archived: false },
      ],
      total: 2,
      page: 1,
      page_size: 25,
    });
  });

  it("reads the organization's workspaces with one query on its partition", async () => {
    serveTenancyTable(dynamo, []);

    await invoke(handler, list());

    const queries = dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatchObject({ KeyConditionExpression: "pk = :p AND begins_with(sk, :ws)", ExpressionAttributeValues: { ":p": `ORG#${admin.organization}`, ":ws": "WS#" } });
  });

  it("leaves archived workspaces out unless is_archived=true", async () => {
    const gone = ws("Gone", { archivedAt: "2025-03-01T00:00:00.000Z" });
    serveTenancyTable(dynamo, [aWorkspaceItem(ws("Live")), aWorkspaceItem(gone)]);

    const live = await invoke(handler, list());
    const all = await invoke(handler, list({ is_archived: "true" }));

    expect(live.json.items.map((w: { name: string }) => w.name)).toStrictEqual(["Live"]);
    expect(all.json.total).toBe(2);
    expect(all.json.items.find((w: { uuid: string }) => w.uuid === gone.id).is_archived).toBe(true);
  });

  it("pages from 1 and filters by search", async () => {
    serveTenancyTable(dynamo, ["alpha", "beta", "alphabet"].map((name, i) => aWorkspaceItem(ws(name, { createdAt: `2025-01-0${i + 1}T00:00:00.000Z` }))));

    const response = await invoke(handler, list({ search: "ALPHA", page: "2", page_size: "1" }));

    expect(response.json).toMatchObject({ total: 2, page: 2, page_size: 1, items: [{ name: "alphabet" }] });
  });

  it("answers 422 for page 0", async () => {
    const response = await invoke(handler, list({ page: "0" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["query", "page"]);
  });

  it("answers 403 admin_required to a key that is not an admin's", async () => {
    const response = await invoke(handler, list({}, aCaller({ roles: ["workspace_admin"] })));

    expect(response.statusCode).toBe(403);
    expect(response.json).toStrictEqual(aPlatformError({ message: "This route needs an admin API key", type: "permission_error", param: null, code: "admin_required" }));
  });
});
