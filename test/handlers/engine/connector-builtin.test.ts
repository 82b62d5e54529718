/**
 * platform:connector through the workflow dispatcher: the program's registrant (decision 0042), never the
 * run's user, calls a connector's tool on a real MCP server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/engine/workflow-dispatch.js";
import type { DispatchEvent } from "../../../shared/domain/workflows/program/index.js";
import type { RunRecord, WorkflowRecord } from "../../../shared/domain/workflows/records.js";
import { seal } from "../../../shared/store/connectors/secrets.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aContext } from "../../support/builders.js";
import { aConnectionItem, aConnectorItems, aConnectorRecord } from "../../support/connector-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";
import { ACTIVITY_PROGRAM, aRegistration, aRun, aWorkflow } from "../../support/workflow-builders.js";
import { aMemberItem, aUserItem, aUserRecord, aWorkspaceItem, aWorkspaceRecord } from "../../support/workspaces-table.js";

const machines = vi.hoisted(() => ({ completeTask: vi.fn(), failTask: vi.fn(), describeRun: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
let tables: FakeTables;
let run: RunRecord;
let workflow: WorkflowRecord;
let mcp: TestMcpServer;
beforeAll(async () => {
  mcp = await startMcpServer({ requireTokens: ["team-token"] });
});
afterAll(() => mcp.close());

beforeEach(async () => {
  tables = serveTables(dynamo, {}, { writes: true });
  for (const fn of [machines.completeTask, machines.failTask]) fn.mockReset().mockResolvedValue(true);
  workflow = aWorkflow();
  const registration = aRegistration(workflow, { program: ACTIVITY_PROGRAM, activities: ["summarize"], registeredBy: REGISTRANT });
  await workflowRegistry.ensureWorkflow(workflow);
  await workflowRegistry.ensureRegistration(registration);
  // The registrant: a contributor of the workspace. The run is started by an admin, whose rights it must not get.
  tables.put("tenancy", aWorkspaceItem(aWorkspaceRecord({ id: workflow.workspace, organization: workflow.organization })));
  tables.put("tenancy", aUserItem(aUserRecord({ id: "user-1", organization: workflow.organization })));
  tables.put("tenancy", aMemberItem({ organization: workflow.organization, workspace: workflow.workspace, user: "user-1", roles: ["workspace_contributor"] }));
  run = aRun({ workspace: workflow.workspace, workflowId: workflow.id, registrationId: registration.id, workflowName: workflow.name, userId: "admin-1", registeredBy: REGISTRANT });
  await runStore.start(run, null);
});

const REGISTRANT = { principal: "user-1", principalType: "user" as const, keyId: "1111111111111111" };

const dispatch = (input: unknown): Promise<DispatchEvent> => {
  const event: DispatchEvent = { token: `token-${Math.random()}`, execution: run.executionArn, state: "Search", resource: "platform:connector", input };
  return handler(event, aContext()).then(() => event);
};

/** A workspace-shared connector with the workspace's bearer credentials. */
async function teamConnector() {
  const record = aConnectorRecord({ organization: workflow.organization, workspace: workflow.workspace, principal: "someone" }, { server: mcp.url, visibility: "shared_workspace", authMethods: ["bearer"] });
  tables.put("connectors", ...aConnectorItems(record));
  const secret = await seal(JSON.stringify({ bearerToken: "team-token" }), { organization: workflow.organization, connector: record.id, scope: "workspace", consumer: workflow.workspace, credentials: "team" });
  tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "workspace", consumer: workflow.workspace, name: "team", authType: "bearer", isDefault: true, secret }));
  return record;
}

describe("platform:connector", () => {
  it("calls the tool with the workspace's credentials and completes the Task with the result", async () => {
    const record = await teamConnector();

    const event = await dispatch({ connector: record.name, tool: "echo", arguments: { text: "from a workflow" } });

    expect(machines.failTask).not.toHaveBeenCalled();
    expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(event.token, {
      content: [{ type: "text", text: "from a workflow" }],
      metadata: { mcp_meta: { isError: false, structuredContent: { echoed: "from a workflow" }, _meta: { "test/echo": true } } },
    });
    expect(mcp.authorizations.at(-1)).toBe("Bearer team-token");
  });

  it("fails the Task with Connector.InvalidRequest for a connector the registrant cannot see, and Workflow.InvalidInput without a tool", async () => {
    const hidden = aConnectorRecord({ organization: workflow.organization, workspace: workflow.workspace, principal: "someone-else" }, { server: mcp.url });
    tables.put("connectors", ...aConnectorItems(hidden));
    const event = await dispatch({ connector: hidden.id, tool: "echo" });
    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, "Connector.InvalidRequest", expect.stringContaining(hidden.id));

    const bad = await dispatch({ connector: hidden.id });
    expect(machines.failTask).toHaveBeenLastCalledWith(bad.token, "Workflow.InvalidInput", expect.stringContaining("`tool`"));
  });

  it("fails the Task with Connector.Error when the server refuses", async () => {
    const record = aConnectorRecord({ organization: workflow.organization, workspace: workflow.workspace, principal: "user-1" }, { server: mcp.url });
    tables.put("connectors", ...aConnectorItems(record));
    const event = await dispatch({ connector: record.id, tool: "echo", arguments: { text: "x" } });
    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, "Connector.Error", expect.any(String));
  });
});

describe("platform:connector runs with the registrant's rights, not the run's user's (decision 0042)", () => {
  /** The admin who starts the run: a private connector and their own credentials for it. */
  async function adminsPrivateConnector() {
    const record = aConnectorRecord({ organization: workflow.organization, workspace: workflow.workspace, principal: "admin-1" }, { server: mcp.url, authMethods: ["bearer"] });
    tables.put("connectors", ...aConnectorItems(record));
    const secret = await seal(JSON.stringify({ bearerToken: "team-token" }), { organization: workflow.organization, connector: record.id, scope: "user", consumer: "admin-1", credentials: "mine" });
    tables.put("connectors", aConnectionItem({ connectorId: record.id, kind: "credentials", scope: "user", consumer: "admin-1", name: "mine", authType: "bearer", isDefault: true, secret }));
    return record;
  }

  it("never reaches the executor's private connector: the Task fails and the executor's token is never sent", async () => {
    const record = await adminsPrivateConnector();
    const sent = mcp.authorizations.length;

    for (const ref of [record.id, record.name]) {
      const event = await dispatch({ connector: ref, tool: "whoami", credentials_name: "mine" });
      expect(machines.failTask).toHaveBeenLastCalledWith(event.token, "Connector.InvalidRequest", expect.any(String));
    }

    expect(machines.completeTask).not.toHaveBeenCalled();
    expect(mcp.authorizations.length).toBe(sent);
  });

  it("fails the Task with Connector.Forbidden, before any call, once the registrant's roles no longer allow connectors", async () => {
    const record = await teamConnector();
    // Demoted since registering: a workflow executor may run workflows, not use connectors.
    tables.put("tenancy", aMemberItem({ organization: workflow.organization, workspace: workflow.workspace, user: "user-1", roles: ["workflow_executor"] }));
    const sent = mcp.authorizations.length;

    const event = await dispatch({ connector: record.name, tool: "echo", arguments: { text: "x" } });

    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, "Connector.Forbidden", expect.stringContaining("user-1"));
    expect(mcp.authorizations.length).toBe(sent);
  });

  it("fails the Task with Connector.Forbidden for a program registered before registrants were recorded", async () => {
    const record = await teamConnector();
    const legacy = aRegistration(workflow, { program: ACTIVITY_PROGRAM, activities: ["summarize"] });
    await workflowRegistry.ensureRegistration(legacy);
    run = aRun({ workspace: workflow.workspace, workflowId: workflow.id, registrationId: legacy.id, workflowName: workflow.name, userId: "admin-1" });
    await runStore.start(run, null);

    const event = await dispatch({ connector: record.name, tool: "echo", arguments: { text: "x" } });

    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, "Connector.Forbidden", expect.stringContaining("register it again"));
  });
});
