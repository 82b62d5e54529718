import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/users/my-workspaces.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aMemberItem, aUserItem, aUserRecord, aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const workspaces = (query: Record<string, string> = {}, who = caller) => anEvent({ method: "GET", path: "/v1/users/me/workspaces", query, caller: who });
const ws = (name: string, overrides = {}) => aWorkspaceRecord({ organization: caller.organization, name, ...overrides });

describe("GET /v1/users/me/workspaces", () => {
  it("answers the live workspaces the user is a member of, by name, with their organization", async () => {
    const [home, lab, gone, other] = [ws("Home", { id: caller.workspace }), ws("Lab"), ws("Gone", { archivedAt: "2025-01-01T00:00:00.000Z" }), ws("Other")];
    const user = aUserRecord({ id: caller.principal, organization: caller.organization });
    serveTenancyTable(dynamo, [
      ...[home, lab, gone, other].map(aWorkspaceItem),
      aUserItem(user),
      ...[home, lab, gone].map((w) => aMemberItem({ organization: caller.organization, workspace: w.id, user: user.id, roles: ["user"] })),
    ]);

    const response = await invoke(handler, workspaces());

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      workspaces: [
        { id: home.id, name: "Home", organization_id: caller.organization },
        { id: lab.id, name: "Lab", organization_id: caller.organization },
      ],
    });
  });

  it("answers none for another organization_id", async () => {
    serveTenancyTable(dynamo, [aWorkspaceItem(ws("Home", { id: caller.workspace }))]);

    expect((await invoke(handler, workspaces({ organization_id: crypto.randomUUID() }))).json).toStrictEqual({ workspaces: [] });
  });

  it("answers only the key's own workspace when no user holds the key", async () => {
    const service = aCaller({ organization: caller.organization, workspace: caller.workspace, principalType: "service_account" });
    serveTenancyTable(dynamo, [aWorkspaceItem(ws("Home", { id: caller.workspace })), aWorkspaceItem(ws("Lab"))]);

    expect((await invoke(handler, workspaces({}, service))).json.workspaces.map((w: { name: string }) => w.name)).toStrictEqual(["Home"]);
  });

  it("answers 422 for an organization_id that is not a UUID", async () => {
    expect((await invoke(handler, workspaces({ organization_id: "acme" }))).statusCode).toBe(422);
  });
});
