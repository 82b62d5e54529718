import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler as createUser } from "../../../functions/admin/create-user.js";
import { handler as listMembers } from "../../../functions/admin/list-members.js";
import { handler as listUsers } from "../../../functions/admin/list-users.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";
import { aMemberItem, aUserItem, aUserRecord, aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const NOW = freezeDate("2026-03-01T12:00:00.000Z");
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const notAdmin = aCaller({ roles: ["workspace_admin"], organization: admin.organization });
const userOf = (overrides: Parameters<typeof aUserRecord>[0] = {}) => aUserRecord({ organization: admin.organization, ...overrides });
const adminRequired = aPlatformError({ message: "This route needs an admin API key", type: "permission_error", param: null, code: "admin_required" });

describe("GET /v1/admin/users", () => {
  const list = (query: Record<string, string> = {}, caller = admin) => anEvent({ method: "GET", path: "/v1/admin/users", query, caller });

  it("answers the organization's users oldest first, snake_case, with the total and the page", async () => {
    const ada = userOf({ email: "ada@example.com", firstName: "Ada", lastName: "Lovelace", organizationRoles: ["organization_admin"], createdAt: "2025-01-02T00:00:00.000Z" });
    const bob = userOf({ email: "bob@example.com", firstName: null, lastName: null, createdAt: "2025-01-01T00:00:00.000Z" });
    serveTenancyTable(dynamo, [aUserItem(ada), aUserItem(bob), aUserItem(aUserRecord())]);

    const response = await invoke(listUsers, list());

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      object: "list",
      data: [
        { id: bob.id, email: "bob@example.com", first_name: null, last_name: null, organization_roles: ["member"], created_at: "2025-01-01T00:00:00.000Z" },
        { id: ada.id, email: "ada@example.com", first_name: "Ada", last_name: "Lovelace", organization_roles: ["organization_admin"], created_at: "2025-01-02T00:00:00.000Z" },
      ],
      total: 2,
      page: 1,
      page_size: 25,
    });
  });

  it("reads them with one query on the organization's partition", async () => {
    serveTenancyTable(dynamo, []);

    await invoke(listUsers, list());

    const queries = dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatchObject({ ExpressionAttributeValues: { ":p": `ORG#${admin.organization}`, ":s": "USER#" } });
  });

  it("pages from 1 and searches emails and names in any case", async () => {
    serveTenancyTable(dynamo, ["alpha", "beta", "alphabet"].map((name, i) => aUserItem(userOf({ email: `${name}-${i}@example.com`, createdAt: `2025-01-0${i + 1}T00:00:00.000Z` }))));

    const response = await invoke(listUsers, list({ search: "ALPHA", page: "2", page_size: "1" }));

    expect(response.json).toMatchObject({ total: 2, page: 2, page_size: 1, data: [{ email: "alphabet-2@example.com" }] });
  });

  it("answers 422 for page 0 and 403 admin_required to a key that is not an admin's", async () => {
    expect((await invoke(listUsers, list({ page: "0" }))).statusCode).toBe(422);

    const refused = await invoke(listUsers, list({}, notAdmin));

    expect(refused.statusCode).toBe(403);
    expect(refused.json).toStrictEqual(adminRequired);
  });
});

describe("POST /v1/admin/users", () => {
  const create = (body: unknown, caller = admin) => aJsonEvent(body, { method: "POST", path: "/v1/admin/users", caller });

  it("answers 201 with the user, made in the caller's organization, and records user.create", async () => {
    const table = serveTenancyTable(dynamo, [{ pk: `ORG#${admin.organization}`, sk: "#ORG", id: admin.organization, name: "Acme", createdAt: "2025-01-01T00:00:00.000Z" }]);

    const response = await invoke(createUser, create({ email: "ada@example.com", first_name: "Ada", organization_roles: ["billing_manager"] }));

    expect(response.statusCode).toBe(201);
    expect(response.json).toStrictEqual({ id: expect.any(String), email: "ada@example.com", first_name: "Ada", last_name: null, organization_roles: ["billing_manager"], created_at: NOW });
    expect(table.items("tenancy").find((i) => i.sk === `USER#${response.json.id}`)).toMatchObject({ pk: `ORG#${admin.organization}`, organization: admin.organization });
    const audit = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input.Item!).find((item) => item.operation === "user.create");
    expect(audit).toMatchObject({ organization: admin.organization, targets: [{ type: "user", id: response.json.id }] });
  });

  it("makes a member when no organization role is given", async () => {
    serveTenancyTable(dynamo, [{ pk: `ORG#${admin.organization}`, sk: "#ORG", id: admin.organization, name: "Acme", createdAt: "2025-01-01T00:00:00.000Z" }]);

    const response = await invoke(createUser, create({ email: "bob@example.com" }));

    expect(response.json.organization_roles).toStrictEqual(["member"]);
  });

  it("answers 409 email_taken for an address that exists, in any organization", async () => {
    const taken = aUserRecord({ email: "ada@example.com" });
    serveTenancyTable(dynamo, [
      { pk: `ORG#${admin.organization}`, sk: "#ORG", id: admin.organization, name: "Acme", createdAt: "2025-01-01T00:00:00.000Z" },
      aUserItem(taken),
      { pk: "EMAIL#ada@example.com", sk: "#EMAIL", user: taken.id, organization: taken.organization },
    ]);

    const response = await invoke(createUser, create({ email: "Ada@Example.com" }));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ type: "conflict_error", code: "email_taken" });
  });

  it("answers 400 for an address that is not one, or a role that is not an organization role", async () => {
    serveTenancyTable(dynamo, [{ pk: `ORG#${admin.organization}`, sk: "#ORG", id: admin.organization, name: "Acme", createdAt: "2025-01-01T00:00:00.000Z" }]);

    const badEmail = await invoke(createUser, create({ email: "not an address" }));
    const badRole = await invoke(createUser, create({ email: "c@example.com", organization_roles: ["workspace_admin"] }));

    expect(badEmail.json).toMatchObject({ type: "invalid_request_error", code: "invalid_email", param: "email" });
    expect(badRole.json).toMatchObject({ type: "invalid_request_error", code: "invalid_role" });
    expect([badEmail.statusCode, badRole.statusCode]).toStrictEqual([400, 400]);
  });

  it("answers 422 for a missing email or an unknown field, and 403 to a key that is not an admin's", async () => {
    for (const body of [{}, { email: "a@example.com", roles: ["organization_admin"] }]) {
      expect((await invoke(createUser, create(body))).statusCode, JSON.stringify(body)).toBe(422);
    }
    expect((await invoke(createUser, create({ email: "a@example.com" }, notAdmin))).statusCode).toBe(403);
  });
});

describe("GET /v1/admin/workspaces/{workspace_uuid}/users", () => {
  const ws = aWorkspaceRecord({ organization: admin.organization });
  const members = (id: string, query: Record<string, string> = {}, caller = admin) =>
    anEvent({ method: "GET", path: `/v1/admin/workspaces/${id}/users`, pathParameters: { workspace_uuid: id }, query, caller });

  it("answers the workspace's members with their roles there and who they are, oldest membership first", async () => {
    const [owner, member] = [userOf({ firstName: "Ada" }), userOf({ firstName: "Bob", organizationRoles: ["billing_manager"] })];
    serveTenancyTable(dynamo, [
      aWorkspaceItem(ws),
      aUserItem(owner),
      aUserItem(member),
      aMemberItem({ organization: ws.organization, workspace: ws.id, user: member.id, roles: ["user"], addedAt: "2025-02-01T00:00:00.000Z", updatedAt: "2025-02-02T00:00:00.000Z" }),
      aMemberItem({ organization: ws.organization, workspace: ws.id, user: owner.id, roles: ["workspace_admin"] }),
    ]);

    const response = await invoke(listMembers, members(ws.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      object: "list",
      data: [
        { user_id: owner.id, email: owner.email, first_name: "Ada", last_name: "Lovelace", roles: ["workspace_admin"], organization_roles: ["member"], added_at: "2025-01-01T00:00:00.000Z", updated_at: "2025-01-01T00:00:00.000Z" },
        { user_id: member.id, email: member.email, first_name: "Bob", last_name: "Lovelace", roles: ["user"], organization_roles: ["billing_manager"], added_at: "2025-02-01T00:00:00.000Z", updated_at: "2025-02-02T00:00:00.000Z" },
      ],
      total: 2,
      page: 1,
      page_size: 25,
    });
  });

  it("pages the members", async () => {
    const users = [0, 1, 2].map(() => userOf());
    serveTenancyTable(dynamo, [
      aWorkspaceItem(ws),
      ...users.map(aUserItem),
      ...users.map((u, i) => aMemberItem({ organization: ws.organization, workspace: ws.id, user: u.id, roles: ["user"], addedAt: `2025-01-0${i + 1}T00:00:00.000Z` })),
    ]);

    const response = await invoke(listMembers, members(ws.id, { page: "2", page_size: "2" }));

    expect(response.json).toMatchObject({ total: 3, page: 2, page_size: 2, data: [{ user_id: users[2]!.id }] });
  });

  it("answers 404 for a workspace of another organization", async () => {
    const foreign = aWorkspaceRecord();
    serveTenancyTable(dynamo, [aWorkspaceItem(foreign), aMemberItem({ organization: foreign.organization, workspace: foreign.id, user: crypto.randomUUID(), roles: ["user"] })]);

    const response = await invoke(listMembers, members(foreign.id));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ type: "not_found_error", code: "workspace_not_found" });
  });

  it("answers 422 for an id that is not a UUID and 403 to a key that is not an admin's", async () => {
    expect((await invoke(listMembers, members("nope"))).statusCode).toBe(422);
    expect((await invoke(listMembers, members(ws.id, {}, notAdmin))).statusCode).toBe(403);
  });
});
