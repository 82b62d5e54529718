/**
 * The workflow routes through the local API Gateway stand-in against DynamoDB Local, with workflows,
 * registrations, runs and events seeded through the stores (no worker, no running engine).
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { aDefinition, seedEvents, seedRegistration, seedRun, seedWorker, sseFrames, workflowsClient } from "../../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const ws = () => tenant.caller.workspace;

describe("GET /v1/workflows", () => {
  it("lists, filters and pages the workspace's workflows", async () => {
    await seedRegistration(ws(), { workflow: { name: "a-first", createdAt: "2026-01-01T00:00:00.000Z", tags: ["t"] } });
    await seedRegistration(ws(), { workflow: { name: "b-second", createdAt: "2026-01-02T00:00:00.000Z" } });
    await seedRegistration(ws(), { workflow: { name: "c-third", createdAt: "2026-01-03T00:00:00.000Z" }, registration: { deploymentName: "live" } });
    await seedRegistration(ws(), { workflow: { name: "d-shelved", createdAt: "2026-01-04T00:00:00.000Z", archived: true } });
    await seedWorker(ws(), "live");

    const first = await http.list({ limit: 2 });
    const second = await http.list({ limit: 2, cursor: first.body.next_cursor });

    expect(first.status).toBe(200);
    expect(first.body.workflows.map((w: { name: string }) => w.name)).toEqual(["a-first", "b-second"]);
    expect(second.body).toMatchObject({ workflows: [{ name: "c-third" }], next_cursor: null });
    expect((await http.list({ archived: true })).body.workflows.map((w: { name: string }) => w.name)).toEqual(["d-shelved"]);
    expect((await http.list({ tags: "t" })).body.workflows.map((w: { name: string }) => w.name)).toEqual(["a-first"]);
    expect((await http.list({ deployment_status: "active" })).body.workflows.map((w: { name: string }) => w.name)).toEqual(["c-third"]);
    expect((await http.list({ sort_by: "display_name", order: "desc" })).body.workflows.map((w: { name: string }) => w.name)).toEqual(["c-third", "b-second", "a-first"]);
    expect((await http.list({ search: "SECOND" })).body.workflows.map((w: { name: string }) => w.name)).toEqual(["b-second"]);
    expect((await http.list({ search: "SHELVED" })).body.workflows).toEqual([]);
    expect((await http.list({ search: "SHELVED", archived: true })).body.workflows.map((w: { name: string }) => w.name)).toEqual(["d-shelved"]);
  });

  it("refuses a cursor it did not issue with 422 WF_1001", async () => {
    const response = await http.list({ cursor: "garbage" });

    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [{ loc: ["query", "cursor"], msg: "Invalid page token", type: "value_error" }], code: "WF_1001" });
  });
});

describe("GET /v1/workflows/registrations", () => {
  it("lists registrations with the deprecated alias and the workflow when asked", async () => {
    const { registration, workflow } = await seedRegistration(ws());

    const response = await http.registrations({ with_workflow: true, workflow_id: workflow.id });

    expect(response.status).toBe(200);
    expect(response.body.workflow_registrations).toEqual([expect.objectContaining({ id: registration.id, workflow: expect.objectContaining({ id: workflow.id, type: "code" }) })]);
    expect(response.body.workflow_versions).toEqual(response.body.workflow_registrations);
  });
});

describe("GET /v1/workflows/{workflow_identifier}", () => {
  it("answers by id and by name, and 404 WF_1100 for another workspace's", async () => {
    const { workflow } = await seedRegistration(ws(), { workflow: { name: "found" } });
    const other = await newTenant();
    const theirs = await seedRegistration(other.caller.workspace);

    expect((await http.get(workflow.id)).body.workflow).toMatchObject({ id: workflow.id, active: false, workspace_id: ws(), type: "code" });
    expect((await http.get("found")).body.workflow.id).toBe(workflow.id);
    const hidden = await http.get(theirs.workflow.id);
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe("WF_1100");
  });
});

describe("PUT /v1/workflows/{workflow_identifier}", () => {
  it("updates the display name, description, chat flag and tags", async () => {
    const { workflow } = await seedRegistration(ws());

    const response = await http.update(workflow.id, { display_name: "Shown", description: "Does things", available_in_chat_assistant: true, tags: ["x", "y"] });

    expect(response.status).toBe(200);
    expect(response.body.workflow).toMatchObject({ display_name: "Shown", description: "Does things", available_in_chat_assistant: true, tags: ["x", "y"] });
    expect((await http.get(workflow.id)).body.workflow.display_name).toBe("Shown");
    expect((await http.update(workflow.id, { display_name: "x".repeat(129) })).status).toBe(422);
  });
});

describe("GET /v1/workflows/{workflow_name}/metrics", () => {
  it("aggregates the seeded runs of the window", async () => {
    const seeded = await seedRegistration(ws(), { workflow: { name: "metered" } });
    await seedRun(ws(), { status: "COMPLETED", startTime: "2026-01-10T00:00:00.000Z", endTime: "2026-01-10T00:00:01.000Z" }, seeded);
    await seedRun(ws(), { status: "FAILED", startTime: "2026-01-10T01:00:00.000Z", endTime: "2026-01-10T01:00:03.000Z" }, seeded);
    await seedRun(ws(), { status: "COMPLETED", startTime: "2026-03-01T00:00:00.000Z", endTime: "2026-03-01T00:00:01.000Z" }, seeded);

    const response = await http.metrics("metered", { start_time: "2026-01-01T00:00:00Z", end_time: "2026-02-01T00:00:00Z" });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ execution_count: { value: 2 }, success_count: { value: 1 }, error_count: { value: 1 }, average_latency_ms: { value: 2000 }, retry_rate: { value: -1 } });
    expect(response.body.latency_over_time.value).toHaveLength(2);
  });
});

describe("POST /v1/workflows/{workflow_identifier}/execute", () => {
  it("refuses input the schema refuses (422), an unknown deployment (404) and an ambiguous workflow (409)", async () => {
    const strict = aDefinition({ input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } });
    await seedRegistration(ws(), { workflow: { name: "twice" }, registration: { deploymentName: "blue", definition: strict } });
    await seedRegistration(ws(), { workflow: { name: "twice" }, registration: { deploymentName: "green", definition: strict } });
    await seedWorker(ws(), "blue");
    await seedWorker(ws(), "green");

    const invalid = await http.execute("twice", { input: { n: "x" }, deployment_name: "blue" });
    const nowhere = await http.execute("twice", { input: { n: 1 }, deployment_name: "red" });
    const ambiguous = await http.execute("twice", { input: { n: 1 } });

    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc).toEqual(["body", "input", "n"]);
    expect(nowhere.status).toBe(404);
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body).toMatchObject({ code: "AMBIGUOUS_WORKFLOW", deployments: ["blue", "green"] });
  });
});

describe("POST /v1/workflows/registrations/{workflow_registration_id}/execute", () => {
  it("answers 404 WF_1100 for a registration it does not know", async () => {
    const response = await http.executeRegistration("00000000-0000-4000-8000-000000000000", {});

    expect(response.status).toBe(404);
    expect(response.body.code).toBe("WF_1100");
  });
});

describe("GET /v1/workflows/executions/{execution_id}", () => {
  it("answers a seeded execution and 404 for an unknown one", async () => {
    const run = await seedRun(ws(), { executionId: "seeded-1", status: "COMPLETED", result: { ok: 1 } });

    expect((await http.execution("seeded-1")).body).toMatchObject({ execution_id: "seeded-1", run_id: run.runId, status: "COMPLETED", result: { ok: 1 }, total_duration_ms: 1000 });
    expect((await http.execution("nope")).status).toBe(404);
  });
});

describe("POST /v1/workflows/executions/{execution_id}/terminate", () => {
  it("answers 409 WF_1102 with the status for a closed execution and 404 for an unknown one", async () => {
    await seedRun(ws(), { executionId: "closed-t", status: "COMPLETED" });

    const closed = await http.terminate("closed-t");

    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ code: "WF_1102", status: "COMPLETED" });
    expect((await http.terminate("unknown")).status).toBe(404);
  });
});

describe("POST /v1/workflows/executions/{execution_id}/cancel", () => {
  it("answers 409 WF_1102 with the status for a closed execution", async () => {
    await seedRun(ws(), { executionId: "closed-c", status: "FAILED" });

    const closed = await http.cancel("closed-c");

    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ code: "WF_1102", status: "FAILED" });
  });
});

describe("POST /v1/workflows/executions/terminate", () => {
  it("answers each id, never failing as a whole", async () => {
    await seedRun(ws(), { executionId: "bt-closed", status: "COMPLETED" });

    const response = await http.batchTerminate(["bt-closed", "bt-unknown"]);

    expect(response.status).toBe(200);
    expect(response.body.results).toEqual({
      "bt-closed": { status: "failure", error: expect.stringContaining("not running") },
      "bt-unknown": { status: "failure", error: "Workflow execution 'bt-unknown' not found" },
    });
    expect((await http.batchTerminate([])).status).toBe(422);
  });
});

describe("POST /v1/workflows/executions/cancel", () => {
  it("answers each id, never failing as a whole", async () => {
    const response = await http.batchCancel(["bc-unknown"]);

    expect(response.status).toBe(200);
    expect(response.body.results["bc-unknown"].status).toBe("failure");
  });
});

describe("GET /v1/workflows/runs", () => {
  it("filters and pages runs by start or end time", async () => {
    const seeded = await seedRegistration(ws(), { workflow: { name: "listed" } });
    const a = await seedRun(ws(), { status: "COMPLETED", startTime: "2026-01-01T00:00:00.000Z", endTime: "2026-01-05T00:00:00.000Z", userId: "u1" }, seeded);
    const b = await seedRun(ws(), { status: "FAILED", startTime: "2026-01-02T00:00:00.000Z", endTime: "2026-01-03T00:00:00.000Z" }, seeded);
    const c = await seedRun(ws(), { status: "RUNNING", startTime: "2026-01-03T00:00:00.000Z" });

    const ids = (reply: { body: { executions: { run_id: string }[] } }) => reply.body.executions.map((e) => e.run_id);
    const first = await http.runs({ page_size: 2 });
    expect(ids(first)).toEqual([c.runId, b.runId]);
    expect(ids(await http.runs({ page_size: 2, next_page_token: first.body.next_page_token }))).toEqual([a.runId]);
    expect(ids(await http.runs({ sort_by: "end_time" }))).toEqual([a.runId, b.runId]);
    expect(ids(await http.runs({ status: ["COMPLETED", "RUNNING"] }))).toEqual([c.runId, a.runId]);
    expect(ids(await http.runs({ workflow_identifier: "listed" }))).toEqual([b.runId, a.runId]);
    expect(ids(await http.runs({ user_id: "u1" }))).toEqual([a.runId]);
    expect(ids(await http.runs({ start_time_after: "2026-01-02T00:00:00Z", start_time_before: "2026-01-02T23:59:59Z" }))).toEqual([b.runId]);
    expect(ids(await http.runs({ root_execution_id: a.executionId }))).toEqual([a.runId]);
    expect((await http.runs({ next_page_token: "forged" })).status).toBe(422);
  });
});

describe("GET /v1/workflows/runs/{run_id}", () => {
  it("answers a run of the workspace and 404 for another's", async () => {
    const mine = await seedRun(ws(), { status: "COMPLETED" });
    const theirs = await seedRun((await newTenant()).caller.workspace);

    expect((await http.run(mine.runId)).body).toMatchObject({ run_id: mine.runId, status: "COMPLETED" });
    expect((await http.run(theirs.runId)).status).toBe(404);
  });
});

describe("GET /v1/workflows/events/list", () => {
  it("pages a root's events in order, and lists the workspace's newest first", async () => {
    const run = await seedRun(ws(), { executionId: "ev-root", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const first = await http.events({ root_workflow_exec_id: "ev-root", limit: 2 });
    const second = await http.events({ root_workflow_exec_id: "ev-root", limit: 2, cursor: first.body.next_cursor });
    const recent = await http.events({ limit: 1 });

    expect(first.body.events.map((e: { event_type: string }) => e.event_type)).toEqual(["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED"]);
    expect(second.body.events.map((e: { event_type: string }) => e.event_type)).toEqual(["ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);
    expect(recent.body.events.map((e: { event_type: string }) => e.event_type)).toEqual(["WORKFLOW_EXECUTION_COMPLETED"]);
    expect(recent.body.next_cursor).toEqual(expect.any(String));
  });
});

describe("GET /v1/workflows/events/stream", () => {
  it("streams a closed root's events as SSE frames, resumes after Last-Event-ID, and refuses a request naming no execution", async () => {
    const run = await seedRun(ws(), { executionId: "sse-root", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const whole = await http.stream({ root_workflow_exec_id: "sse-root", workflow_exec_id: "*", parent_workflow_exec_id: "*" });
    const resumed = await http.stream({ workflow_exec_id: "sse-root" }, { "last-event-id": "2" });
    const refused = await http.stream({ root_workflow_exec_id: "*", workflow_exec_id: "*", parent_workflow_exec_id: "*" });

    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("text/event-stream");
    expect(whole.body).toMatch(/^id: 1\nevent: workflow\.event\ndata: \{/);
    expect(sseFrames(whole.body).map((f) => [f.id, f.data.broker_sequence, f.data.data.event_type])).toEqual([
      ["1", 1, "WORKFLOW_EXECUTION_STARTED"],
      ["2", 2, "ACTIVITY_TASK_STARTED"],
      ["3", 3, "WORKFLOW_EXECUTION_COMPLETED"],
    ]);
    expect(sseFrames(resumed.body).map((f) => f.id)).toEqual(["3"]);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("WF_1001");
  });
});
