import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/users/me.js";
import { PERMISSIONS } from "../../../shared/domain/identity/permissions.js";
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
      permissions: [
        "agents:read",
        "audio:read",
        "audio:write",
        "batch:read",
        "batch:write",
        "connectors:read",
        "files:read",
        "files:write",
        "identity:read",
        "inference:invoke",
        "libraries:read",
        "models:read",
        "observability:read",
        "observability:write",
        "registry:read",
        "retrieval:read",
        "workflows:execute",
        "workflows:read",
      ],
    });
  });

  it("answers an admin key with every permission, sorted", async () => {
    const caller = aCaller({ admin: true, roles: [] });
    served(caller);

    const response = await invoke(handler, me(caller));

    expect(response.json.permissions).toStrictEqual([...PERMISSIONS].sort());
  });

  it("answers the permissions of the organization role a user key carries besides its workspace roles", async () => {
    const caller = aCaller({ roles: ["observability_viewer", "billing_manager"] });
    served(caller);

    const response = await invoke(handler, me(caller));

    expect(response.json.permissions).toStrictEqual(["identity:read", "observability:read", "usage:read"]);
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

    const response = await invoke(handler, me(caller));

    expect(response.statusCode).toBe(200);
    expect(response.json.permissions).toStrictEqual(["identity:read"]);
  });
});
