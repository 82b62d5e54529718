import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/users/me.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anApiKeyRecord, anEvent, invoke } from "../../support/builders.js";
import { aUserItem, aUserRecord, aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const me = (caller: ReturnType<typeof aCaller>) => anEvent({ method: "GET", path: "/v1/users/me", caller });

function served(caller: ReturnType<typeof aCaller>, user?: ReturnType<typeof aUserRecord>) {
  const ws = aWorkspaceRecord({ id: caller.workspace, organization: caller.organization, name: "Research" });
  const key = anApiKeyRecord({ ...caller, name: "laptop" });
  serveTenancyTable(dynamo, [
    aWorkspaceItem(ws),
    { pk: `ORG#${caller.organization}`, sk: "#ORG", id: caller.organization, name: "Acme", createdAt: "2025-01-01T00:00:00.000Z" },
    { pk: `KEY#${key.hash}`, sk: "#KEY", ...key },
    { pk: `KEYID#${key.keyId}`, sk: "#KEY", hash: key.hash },
    ...(user ? [aUserItem(user)] : []),
  ]);
}

describe("GET /v1/users/me", () => {
  it("answers the key's user, organization, workspace and key, snake_case as the SDK reads them", async () => {
    const caller = aCaller({ roles: ["user", "member"] });
    const user = aUserRecord({ id: caller.principal, organization: caller.organization, email: "ada@example.com", firstName: "Ada", lastName: null });
    served(caller, user);

    const response = await invoke(handler, me(caller));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      id: user.id,
      email: "ada@example.com",
      first_name: "Ada",
      last_name: null,
      workspace: { id: caller.workspace, name: "Research" },
      organization: { id: caller.organization, name: "Acme" },
      api_key: { id: caller.keyId, name: "laptop" },
      type: "user",
      roles: ["user", "member"],
    });
  });

  it("answers a service account's key with its principal and no person", async () => {
    const caller = aCaller({ principalType: "service_account", roles: ["workspace_admin"] });
    served(caller);

    const response = await invoke(handler, me(caller));

    expect(response.json).toMatchObject({ id: caller.principal, email: null, first_name: null, last_name: null, type: "service_account", roles: ["workspace_admin"] });
  });

  it("lets every role ask, even one with no other permission", async () => {
    const caller = aCaller({ roles: ["member"] });
    served(caller);

    expect((await invoke(handler, me(caller))).statusCode).toBe(200);
  });
});
