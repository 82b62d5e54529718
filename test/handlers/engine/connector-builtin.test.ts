/** platform:connector through the workflow dispatcher: the run's user calls a connector's tool on a real MCP server. */
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
  const registration = aRegistration(workflow, { program: ACTIVITY_PROGRAM, activities: ["summarize"] });
  await workflowRegistry.ensureWorkflow(workflow);
  await workflowRegistry.ensureRegistration(registration);
  run = aRun({ workspace: workflow.workspace, workflowId: workflow.id, registrationId: registration.id, workflowName: workflow.name, userId: "user-1" });
  await runStore.start(run, null);
});

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

  it("fails the Task with Connector.InvalidRequest for a connector the run's user cannot see, and Workflow.InvalidInput without a tool", async () => {
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
