/**
 * The workflow confused deputy (issue 24 item 2, decision 0042), against the embedded servers and a real MCP
 * server. (a) A contributor registers a program whose connector step names an admin's private connector; the admin
 * runs it through every route that runs a program: the admin's secret never reaches the tool server, and nothing
 * the contributor can read holds it. (b) A contributor cannot replace an admin's registration through any route that
 * takes a program. The routes are taken from the route table: a new row that publishes programs or starts runs
 * fails "covers every route…" until it has a driver here (or is listed as stopping runs only).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../../functions/routes.js";
import { routeKey } from "../../../shared/http/policy.js";
import { useEmbeddedApi } from "../../support/api.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";
import { newTenant, type TestTenant } from "../../support/tenant.js";
import { workflowsClient } from "../../support/workflow-builders.js";
import { workersClient } from "../../support/workers-client.js";

const { api, tenant: admin } = useEmbeddedApi({ tenant: "per-file" });
const ADMIN_SECRET = `admin-secret-${randomUUID()}`;
const CONTRIBUTOR_SECRET = `contributor-secret-${randomUUID()}`;

let mcp: TestMcpServer;
let contributor: TestTenant;
let adminConnector: { id: string; name: string };
let leakRegistration: string;

/** One connector step on `connector`'s `whoami` tool, which answers the Authorization header it got. */
const connectorProgram = (connector: string) => ({ StartAt: "Call", States: { Call: { Type: "Task", Resource: "platform:connector", Parameters: { connector, tool: "whoami" }, End: true } } });
const textOf = (reply: { body: unknown }) => (typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body));
const registerBody = (name: string, program: object) => ({ definitions: [{ name, definition: { input_schema: { type: "object" } }, program }] });

beforeAll(async () => {
  mcp = await startMcpServer();
  contributor = await newTenant({ organization: admin.caller.organization, workspace: admin.caller.workspace, roles: ["workspace_contributor"] });
  const created = await connectorsClient(api, admin).created(aConnectorBody({ server: mcp.url, global_headers: { authorization: { value: `Bearer ${ADMIN_SECRET}` } } }));
  adminConnector = { id: created.id, name: created.name };
  const mine = await connectorsClient(api, contributor).created(aConnectorBody({ server: mcp.url, global_headers: { authorization: { value: `Bearer ${CONTRIBUTOR_SECRET}` } } }));
  const workers = workersClient(api, contributor, { deployment: "contributor-pool", name: "w1" });
  const leak = await workers.register(registerBody("leak", connectorProgram(adminConnector.id)));
  expect(leak.status, JSON.stringify(leak.body)).toBe(200);
  leakRegistration = leak.body.workflow_registration_ids[0];
  expect((await workers.register(registerBody("own", connectorProgram(mine.id)))).status).toBe(200);
}, 120_000);
afterAll(() => mcp.close());

const adminHttp = () => workflowsClient(api, admin);
const contributorHttp = () => workflowsClient(api, contributor);

/** The execution once its latest run closed (polled through the API, as the contributor reads it). */
async function closed(executionId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 200; i += 1) {
    const reply = await contributorHttp().execution(executionId);
    if (reply.status === 200 && !["RUNNING", "RETRYING_AFTER_ERROR"].includes(reply.body.status)) return reply.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`execution ${executionId} did not close`);
}

/** Everything the contributor may read of the execution: its answer, its run, its history and its events. */
async function readableByContributor(executionId: string): Promise<string> {
  const http = contributorHttp();
  const execution = await http.execution(executionId);
  const parts = [textOf(execution), textOf(await http.history(executionId, { decode_payloads: "true" })), textOf(await http.events({ root_workflow_exec_id: executionId }))];
  if (execution.body?.run_id) parts.push(textOf(await http.run(execution.body.run_id)));
  return parts.join("\n");
}

async function expectNoLeak(executionId: string, sentBefore: number): Promise<void> {
  const execution = await closed(executionId);
  expect(execution.status).toBe("FAILED");
  expect(execution.registered_by).toEqual({ principal_id: contributor.caller.principal, principal_type: "user", registration_id: expect.any(String) });
  expect(mcp.authorizations.slice(sentBefore).filter((a) => a?.includes(ADMIN_SECRET))).toEqual([]);
  expect(await readableByContributor(executionId)).not.toContain(ADMIN_SECRET);
}

/** How each route that runs a program is made to run the contributor's `leak` program as the admin. */
const runDrivers: Record<string, () => Promise<string>> = {
  "POST /v1/workflows/{workflow_identifier}/execute": async () => {
    const reply = await adminHttp().execute("leak", { execution_id: `by-name-${randomUUID()}` });
    expect(reply.status, textOf(reply)).toBe(200);
    return reply.body.execution_id;
  },
  "POST /v1/workflows/registrations/{workflow_registration_id}/execute": async () => {
    const reply = await adminHttp().executeRegistration(leakRegistration, { execution_id: `by-registration-${randomUUID()}` });
    expect(reply.status, textOf(reply)).toBe(200);
    return reply.body.execution_id;
  },
  "POST /v1/workflows/executions/{execution_id}/reset": async () => {
    const executionId = `reset-${randomUUID()}`;
    expect((await adminHttp().execute("leak", { execution_id: executionId })).status).toBe(200);
    await closed(executionId);
    const history = await adminHttp().history(executionId);
    const point = history.body.events.find((e: { eventType: string }) => e.eventType === "EVENT_TYPE_WORKFLOW_TASK_COMPLETED");
    const reset = await adminHttp().request("POST", `/v1/workflows/executions/${executionId}/reset`, { json: { event_id: Number(point.eventId) } });
    expect(reset.status, textOf(reset)).toBe(204);
    return executionId;
  },
  "POST /v1/workflows/schedules/{schedule_id}/trigger": async () => {
    const created = await adminHttp().request("POST", "/v1/workflows/schedules", {
      json: { workflow_identifier: "leak", schedule: { input: {}, intervals: [{ every: "PT1H" }], start_at: "2030-01-01T00:00:00.000Z" } },
    });
    expect(created.status, textOf(created)).toBe(201);
    const triggered = await adminHttp().request("POST", `/v1/workflows/schedules/${created.body.schedule_id}/trigger`);
    expect(triggered.status, textOf(triggered)).toBe(204);
    const schedule = await adminHttp().request("GET", `/v1/workflows/schedules/${created.body.schedule_id}`);
    const started = JSON.stringify(schedule.body).match(/"execution_id":"([^"]+)"/);
    expect(started, textOf(schedule)).toBeTruthy();
    return started![1]!;
  },
};

/** Rows that hold the right to start runs but only stop them (or arm a fire that `trigger`'s driver covers). */
const STOPS_OR_ARMS_ONLY = new Set([
  "POST /v1/workflows/executions/{execution_id}/terminate",
  "POST /v1/workflows/executions/{execution_id}/cancel",
  "POST /v1/workflows/executions/terminate",
  "POST /v1/workflows/executions/cancel",
  "POST /v1/workflows/schedules",
  "PATCH /v1/workflows/schedules/{schedule_id}",
  "POST /v1/workflows/schedules/{schedule_id}/resume",
]);

/** How each route that takes a program is made to try replacing the admin's registration. */
const replaceDrivers: Record<string, () => Promise<void>> = {
  "POST /v1/workflows/register": async () => {
    const name = `admins-${randomUUID().slice(0, 8)}`;
    const original = { StartAt: "Done", States: { Done: { Type: "Pass", Result: { from: "admin" }, End: true } } };
    const registered = await workersClient(api, admin, { deployment: "shared-open", name: "admin-worker" }).register(registerBody(name, original));
    expect(registered.status, textOf(registered)).toBe(200);
    // The deployment opened on purpose: hardening does not stop anyone here, ownership must.
    const deployment = await adminHttp().request("GET", "/v1/workflows/deployments/shared-open");
    expect((await adminHttp().request("POST", `/v1/workflows/deployments/${deployment.body.id}/unharden`)).status).toBe(200);
    const before = await adminHttp().registrations();

    for (const deploymentName of ["shared-open", "contributor-pool"]) {
      const replaced = await workersClient(api, contributor, { deployment: deploymentName, name: "w1" }).register(registerBody(name, connectorProgram(adminConnector.id)));
      expect(replaced.status, `${deploymentName}: ${textOf(replaced)}`).toBe(403);
      expect(replaced.body.detail).toMatch(/registered by another principal/);
    }

    expect(textOf(await adminHttp().registrations())).toBe(textOf(before));
    const run = await adminHttp().execute(name, { wait_for_result: true });
    expect(run.body.result).toEqual({ from: "admin" });
  },
};

const isProgramRoute = (row: RouteRow) => row.grants.workflows?.publish === true;
const isRunRoute = (row: RouteRow) => row.grants.workflows?.runs === "start-stop" || row.grants.workflows?.schedules === "arm";

describe("the workflow routes that take or run a program", () => {
  it("covers every route the route table gives the right to publish programs or start runs", () => {
    const uncovered = routes.filter((row) => (isProgramRoute(row) || isRunRoute(row)) && !runDrivers[routeKey(row)] && !replaceDrivers[routeKey(row)] && !STOPS_OR_ARMS_ONLY.has(routeKey(row)));
    expect(uncovered.map(routeKey)).toEqual([]);
    for (const key of [...Object.keys(runDrivers), ...Object.keys(replaceDrivers), ...STOPS_OR_ARMS_ONLY]) expect(routes.some((row) => routeKey(row) === key), key).toBe(true);
  });
});

describe.each(Object.keys(runDrivers))("%s", (key) => {
  it("runs a contributor's program with the contributor's rights: the admin's secret never reaches the tool server nor the contributor", { timeout: 60_000 }, async () => {
    const sent = mcp.authorizations.length;
    const executionId = await runDrivers[key]!();
    await expectNoLeak(executionId, sent);
  });
});

describe.each(Object.keys(replaceDrivers))("%s", (key) => {
  it("refuses a contributor's program under a workflow an admin registered (403), the admin's registration unchanged", { timeout: 60_000 }, async () => {
    await replaceDrivers[key]!();
  });
});

describe("POST /v1/workflows/{workflow_identifier}/execute of a program using its registrant's own connector", () => {
  it("uses the registrant's connector and credentials whoever runs it, and records the registrant on the run and its STARTED event", { timeout: 60_000 }, async () => {
    const reply = await adminHttp().execute("own", { wait_for_result: true, execution_id: `own-${randomUUID()}` });
    expect(reply.status, textOf(reply)).toBe(200);
    expect(JSON.stringify(reply.body.result)).toContain(CONTRIBUTOR_SECRET);
    const execution = await adminHttp().execution(reply.body.execution_id);
    expect(execution.body).toMatchObject({ user_id: admin.caller.principal, registered_by: { principal_id: contributor.caller.principal, principal_type: "user" } });
    const events = await adminHttp().events({ root_workflow_exec_id: reply.body.execution_id });
    const started = events.body.events.find((e: { event_type: string }) => e.event_type === "WORKFLOW_EXECUTION_STARTED");
    expect(started.attributes.registered_by).toMatchObject({ principal_id: contributor.caller.principal });
  });
});
