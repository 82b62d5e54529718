import { PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/admin/list-audit-events.js";
import { handler as updateWorkspace } from "../../../functions/admin/update-workspace.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { anAuditEvent, anAuditItem } from "../../support/audit-items.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aWorkspaceItem, aWorkspaceRecord, serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const list = (query: Record<string, string> = {}, caller = admin) => anEvent({ method: "GET", path: "/v1/admin/audit-events", query, caller });
const ofAdmin = (overrides: Parameters<typeof anAuditEvent>[0] = {}) => anAuditEvent({ organization: admin.organization, ...overrides });

describe("GET /v1/admin/audit-events", () => {
  it("answers the organization's events newest first, shaped as audit_event objects", async () => {
    const older = ofAdmin({ at: "2026-11-20T10:00:00.000Z" });
    const newer = ofAdmin({ at: "2026-11-21T10:00:00.000Z", operation: "key.revoke", origin: { via: "cli" }, actor: { kind: "cli", id: "ops" }, before: { revoked_at: null }, after: null });
    serveTables(dynamo, { audit: [anAuditItem(older), anAuditItem(newer)] });

    const response = await invoke(handler, list());

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      object: "list",
      data: [
        {
          id: newer.id,
          object: "audit_event",
          created_at: newer.at,
          operation: "key.revoke",
          organization_id: admin.organization,
          workspace_id: newer.workspace,
          actor: { type: "cli", id: "ops", api_key_id: null },
          origin: { via: "cli", request_id: null, address: null, forwarded_by: null },
          targets: newer.targets,
          before: { revoked_at: null },
          after: null,
        },
        expect.objectContaining({ id: older.id, actor: { type: "user", id: older.actor.id, api_key_id: older.actor.keyId }, origin: { via: "api", request_id: older.origin.requestId, address: "203.0.113.9", forwarded_by: null } }),
      ],
      next_cursor: null,
    });
  });

  it("queries only the caller's organization's partition, the time range as the key condition and the rest as a filter", async () => {
    serveTables(dynamo, {});

    await invoke(handler, list({ actor: "key-1", target: "ws-1", operation: "membership.put", workspace_id: "ws-2", since: "2026-11-19T00:00:00Z", until: "2026-11-26T00:00:00Z" }));

    const [query] = dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(query).toMatchObject({
      KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :lo AND :hi",
      FilterExpression: "(#actorId = :actor OR #actorKeyId = :actor) AND contains(#targetIds, :target) AND #operation = :operation AND #workspace = :workspace",
      ExpressionAttributeValues: {
        ":pk": `ORG#${admin.organization}`,
        ":lo": "2026-11-19T00:00:00.000Z",
        ":hi": "2026-11-26T00:00:00.000Z#~",
        ":actor": "key-1",
        ":target": "ws-1",
        ":operation": "membership.put",
        ":workspace": "ws-2",
      },
      ScanIndexForward: false,
    });
  });

  it("pages with next_cursor: the next page starts after the last event of the one before", async () => {
    const events = [1, 2, 3].map((day) => ofAdmin({ at: `2026-11-0${day}T00:00:00.000Z` }));
    serveTables(dynamo, { audit: events.map(anAuditItem) });

    const first = await invoke(handler, list({ page_size: "2" }));
    const second = await invoke(handler, list({ page_size: "2", cursor: first.json.next_cursor }));

    expect(first.json.data.map((e: { id: string }) => e.id)).toStrictEqual([events[2]!.id, events[1]!.id]);
    expect(second.json.data.map((e: { id: string }) => e.id)).toStrictEqual([events[0]!.id]);
    expect(second.json.next_cursor).toBeNull();
  });

  it.each([
    [{ cursor: "garbage" }, "cursor"],
    [{ operation: "key.steal" }, "operation"],
    [{ since: "yesterday" }, "since"],
    [{ since: "2026-11-02T00:00:00Z", until: "2026-11-01T00:00:00Z" }, "until"],
    [{ page_size: "101" }, "page_size"],
    [{ unknown: "x" }, "unknown"],
  ])("answers 422 for %j and reads nothing", async (query, param) => {
    serveTables(dynamo, {});

    const response = await invoke(handler, list(query as Record<string, string>));

    expect(response.statusCode).toBe(422);
    expect(JSON.stringify(response.json)).toContain(param);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it("answers 403 to a key that is no admin, before any read", async () => {
    serveTables(dynamo, {});

    const response = await invoke(handler, list({}, aCaller({ roles: ["workspace_admin"] })));

    expect(response.statusCode).toBe(403);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });
});

describe("PATCH /v1/admin/workspaces/{workspace_uuid} (its audit event)", () => {
  it("appends one event with a condition that it is new, naming the key, the request and the changed fields only", async () => {
    const ws = aWorkspaceRecord({ organization: admin.organization, name: "Old", description: "kept" });
    serveTenancyTable(dynamo, [aWorkspaceItem(ws)]);
    const event = aJsonEvent({ name: "New" }, { method: "PATCH", path: `/v1/admin/workspaces/${ws.id}`, resource: "/v1/admin/workspaces/{workspace_uuid}", pathParameters: { workspace_uuid: ws.id }, caller: admin });

    const response = await invoke(updateWorkspace, event);

    expect(response.statusCode).toBe(200);
    const puts = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input).filter((input) => input.TableName === process.env.TABLE_AUDIT);
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatchObject({
      ConditionExpression: "attribute_not_exists(pk)",
      Item: {
        pk: `ORG#${admin.organization}`,
        operation: "workspace.update",
        workspace: ws.id,
        actor: { kind: admin.principalType, id: admin.principal, keyId: admin.keyId },
        origin: { via: "api", requestId: response.headers!["x-request-id"] },
        targets: [{ type: "workspace", id: ws.id }],
        before: { name: "Old" },
        after: { name: "New" },
        ttl: expect.any(Number),
      },
    });
    // Nothing on the audit table is ever updated or deleted.
    expect(dynamo.commandCalls(UpdateCommand).filter((c) => c.args[0].input.TableName === process.env.TABLE_AUDIT)).toHaveLength(0);
  });
});
