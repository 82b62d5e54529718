import { randomUUID } from "node:crypto";
import { DeleteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as activate } from "../../../functions/connectors/activate.js";
import { handler as deactivate } from "../../../functions/connectors/deactivate.js";
import { handler as activateOrg } from "../../../functions/connectors/activate-organization.js";
import { handler as deactivateOrg } from "../../../functions/connectors/deactivate-organization.js";
import { handler as share } from "../../../functions/connectors/share.js";
import { handler as shareOrg } from "../../../functions/connectors/share-organization.js";
import { handler as unshare } from "../../../functions/connectors/unshare.js";
import { handler as unshareOrg } from "../../../functions/connectors/unshare-organization.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aConnectionItem, aConnectorItems, aConnectorRecord } from "../../support/connector-items.js";
import { conditionFailed, serveTables, type FakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const admin = aCaller({ roles: ["workspace_admin"] });
const orgAdmin = aCaller({ organization: admin.organization, workspace: admin.workspace, roles: ["organization_admin"] });
const stored = (overrides: Parameters<typeof aConnectorRecord>[1] = {}, who = admin) => {
  const record = aConnectorRecord(who, overrides);
  tables.put("connectors", ...aConnectorItems(record));
  return record;
};
const visibility = (id: string) => tables.items("connectors").find((i) => i.sk === `C#${id}`)!.visibility;
const event = (method: "PUT" | "DELETE" | "POST", resource: string, params: Record<string, string>, who: ReturnType<typeof aCaller>) =>
  anEvent({ method, resource, path: resource.replace(/\{(\w+)\}/g, (_, k: string) => params[k]!), pathParameters: params, caller: who });

describe("PUT /v1/connectors/{connector_id}/share", () => {
  const sharing = (id: string, who = admin) => event("PUT", "/v1/connectors/{connector_id}/share", { connector_id: id }, who);

  it("moves a private connector to shared_workspace on condition of its revision", async () => {
    const record = stored();
    const response = await invoke(share, sharing(record.id));
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ message: expect.any(String) });
    expect(visibility(record.id)).toBe("shared_workspace");
    const [write] = dynamo.commandCalls(UpdateCommand);
    expect(write!.args[0].input).toMatchObject({ ConditionExpression: "revision = :revision", ExpressionAttributeValues: { ":visibility": "shared_workspace", ":revision": 1 } });
  });

  it("answers 403 to a creator without ShareConnectorToWorkspace (the route needs it)", async () => {
    const contributor = aCaller({ roles: ["contributor"] });
    const record = stored({}, contributor);
    const response = await invoke(share, sharing(record.id, contributor));
    expect(response.statusCode).toBe(403);
    expect(visibility(record.id)).toBe("private");
  });

  it("retries when the connector changed in between, and answers 409 when it keeps changing", async () => {
    const record = stored();
    dynamo.on(UpdateCommand).rejects(conditionFailed());
    const response = await invoke(share, sharing(record.id));
    expect(response.statusCode).toBe(409);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(5);
  });
});

describe("DELETE /v1/connectors/{connector_id}/share", () => {
  it("makes it private and deletes every connection but the creator's own", async () => {
    const record = stored({ visibility: "shared_workspace" });
    const other = randomUUID();
    tables.put(
      "connectors",
      aConnectionItem({ connectorId: record.id, kind: "activation", scope: "user", consumer: admin.principal }),
      aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: admin.principal, name: "mine" }),
      aConnectionItem({ connectorId: record.id, kind: "activation", scope: "user", consumer: other }),
      aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "workspace", consumer: admin.workspace, name: "team" }),
    );

    const response = await invoke(unshare, event("DELETE", "/v1/connectors/{connector_id}/share", { connector_id: record.id }, admin));

    expect(response.statusCode).toBe(200);
    expect(visibility(record.id)).toBe("private");
    const left = tables.items("connectors").filter((i) => String(i.pk).startsWith("CONN#")).map((i) => i.sk);
    expect(left.sort()).toEqual([`ACT#user#${admin.principal}`, `CRED#user#${admin.principal}#mine`].sort());
    expect(dynamo.commandCalls(DeleteCommand)).toHaveLength(2);
  });
});

describe("PUT /v1/connectors/{connector_id}/organization/share", () => {
  it("needs ShareConnectorToOrg: 403 for a workspace admin, shared_org for an organization admin", async () => {
    const record = stored({}, orgAdmin);
    expect((await invoke(shareOrg, event("PUT", "/v1/connectors/{connector_id}/organization/share", { connector_id: record.id }, { ...admin, principal: orgAdmin.principal }))).statusCode).toBe(403);
    const response = await invoke(shareOrg, event("PUT", "/v1/connectors/{connector_id}/organization/share", { connector_id: record.id }, orgAdmin));
    expect(response.statusCode).toBe(200);
    expect(visibility(record.id)).toBe("shared_org");
  });
});

describe("DELETE /v1/connectors/{connector_id}/organization/share", () => {
  it("makes it private; 409 for a connector not shared with the organization", async () => {
    const shared = stored({ visibility: "shared_org" }, orgAdmin);
    tables.put("connectors", aConnectionItem({ connectorId: shared.id, kind: "activation", scope: "organization", consumer: orgAdmin.organization }));
    expect((await invoke(unshareOrg, event("DELETE", "/v1/connectors/{connector_id}/organization/share", { connector_id: shared.id }, orgAdmin))).statusCode).toBe(200);
    expect(visibility(shared.id)).toBe("private");
    expect(tables.items("connectors").filter((i) => String(i.pk).startsWith("CONN#"))).toEqual([]);
    expect((await invoke(unshareOrg, event("DELETE", "/v1/connectors/{connector_id}/organization/share", { connector_id: shared.id }, orgAdmin))).statusCode).toBe(409);
  });
});

describe("POST /v1/connectors/{connector_id}/{consumer_scope}/activate", () => {
  const activating = (id: string, scope: string, who: ReturnType<typeof aCaller>) => event("POST", "/v1/connectors/{connector_id}/{consumer_scope}/activate", { connector_id: id, consumer_scope: scope }, who);

  it("writes an activation for the consumer the scope names", async () => {
    const record = stored({ visibility: "shared_org" }, orgAdmin);
    for (const [scope, consumer] of [["user", orgAdmin.principal], ["workspace", orgAdmin.workspace], ["organization", orgAdmin.organization]] as const) {
      expect((await invoke(activate, activating(record.id, scope, orgAdmin))).statusCode).toBe(200);
      expect(tables.items("connectors").map((i) => i.sk)).toContain(`ACT#${scope}#${consumer}`);
    }
  });

  it("answers 403 for the organization scope without ShareConnectorToOrg, 422 for an unknown scope", async () => {
    const record = stored();
    expect((await invoke(activate, activating(record.id, "organization", admin))).statusCode).toBe(403);
    expect((await invoke(activate, activating(record.id, "team", admin))).statusCode).toBe(422);
  });
});

describe("POST /v1/connectors/{connector_id}/organization/activate", () => {
  it("activates for the organization (the literal path API Gateway routes scope organization to); 403 without ShareConnectorToOrg", async () => {
    const record = stored({ visibility: "shared_org" }, orgAdmin);
    const at = (who: ReturnType<typeof aCaller>) => event("POST", "/v1/connectors/{connector_id}/organization/activate", { connector_id: record.id }, who);
    expect((await invoke(activateOrg, at(admin))).statusCode).toBe(403);
    expect((await invoke(activateOrg, at(orgAdmin))).statusCode).toBe(200);
    expect(tables.items("connectors").map((i) => i.sk)).toContain(`ACT#organization#${orgAdmin.organization}`);
  });
});

describe("POST /v1/connectors/{connector_id}/organization/deactivate", () => {
  it("removes the organization's activation", async () => {
    const record = stored({ visibility: "shared_org" }, orgAdmin);
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "activation", scope: "organization", consumer: orgAdmin.organization }));
    expect((await invoke(deactivateOrg, event("POST", "/v1/connectors/{connector_id}/organization/deactivate", { connector_id: record.id }, orgAdmin))).statusCode).toBe(200);
    expect(tables.items("connectors").filter((i) => String(i.pk).startsWith("CONN#"))).toEqual([]);
  });
});

describe("POST /v1/connectors/{connector_id}/{consumer_scope}/deactivate", () => {
  it("deletes the consumer's activation", async () => {
    const record = stored();
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "activation", scope: "user", consumer: admin.principal }));
    const response = await invoke(deactivate, event("POST", "/v1/connectors/{connector_id}/{consumer_scope}/deactivate", { connector_id: record.id, consumer_scope: "user" }, admin));
    expect(response.statusCode).toBe(200);
    expect(tables.items("connectors").filter((i) => String(i.pk).startsWith("CONN#"))).toEqual([]);
  });
});
