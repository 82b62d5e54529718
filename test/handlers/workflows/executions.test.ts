import { randomUUID } from "node:crypto";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as batchCancel } from "../../../functions/workflows/batch-cancel.js";
import { handler as batchTerminate } from "../../../functions/workflows/batch-terminate.js";
import { handler as cancel } from "../../../functions/workflows/cancel.js";
import { handler as getExecution } from "../../../functions/workflows/get-execution.js";
import { handler as getRun } from "../../../functions/workflows/get-run.js";
import { handler as listRuns } from "../../../functions/workflows/list-runs.js";
import { handler as terminate } from "../../../functions/workflows/terminate.js";
import { eventStore } from "../../../shared/store/workflows/events.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { taskStore } from "../../../shared/store/workflows/tasks.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aTask, seedRun } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ startRun: vi.fn(), stopRun: vi.fn(), describeRun: vi.fn(), completeTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);
const timers = vi.hoisted(() => ({ armTimer: vi.fn(), disarmTimer: vi.fn() }));
vi.mock("../../../shared/engine/timers.js", () => timers);

const dynamo = mockDynamo();
const caller = aCaller();
const NOW = freezeDate("2026-02-01T00:00:00.000Z");
let tables: FakeTables;

beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  machines.stopRun.mockReset().mockResolvedValue(undefined);
  timers.armTimer.mockReset().mockResolvedValue(undefined);
  timers.disarmTimer.mockReset().mockResolvedValue(undefined);
});

const at = (path: string, resource: string, pathParameters: Record<string, string>, method = "POST") => anEvent({ method, path, resource, pathParameters, caller });
const eventsOf = async (root: string) => (await eventStore.listFrom(caller.workspace, root, 0, 100)).map((e) => e.event.event_type);

describe("GET /v1/workflows/executions/{execution_id}", () => {
  it("answers the execution as its latest run has it, with the total duration once closed", async () => {
    const run = await seedRun(caller.workspace, { status: "COMPLETED", result: { ok: true }, executionId: "e-1", startTime: "2026-01-01T00:00:00.000Z", endTime: "2026-01-01T00:00:01.500Z" });

    const response = await invoke(getExecution, anEvent({ path: "/v1/workflows/executions/e-1", pathParameters: { execution_id: "e-1" }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      workflow_name: run.workflowName,
      workflow_id: run.workflowId,
      deployment_name: "default",
      execution_id: "e-1",
      parent_execution_id: null,
      root_execution_id: "e-1",
      run_id: run.runId,
      user_id: null,
      status: "COMPLETED",
      start_time: "2026-01-01T00:00:00.000Z",
      end_time: "2026-01-01T00:00:01.500Z",
      total_duration_ms: 1500,
      registered_by: null,
      result: { ok: true },
    });
  });

  it("adds search_keys when asked, and answers 404 WF_1100 for an unknown id", async () => {
    await seedRun(caller.workspace, { executionId: "e-2" });

    const withKeys = await invoke(getExecution, anEvent({ path: "/v1/workflows/executions/e-2", pathParameters: { execution_id: "e-2" }, query: { include_search_keys: "true" }, caller }));
    const unknown = await invoke(getExecution, anEvent({ path: "/v1/workflows/executions/nope", pathParameters: { execution_id: "nope" }, caller }));

    expect(withKeys.json.search_keys).toEqual({});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json).toEqual({ detail: "Workflow execution 'nope' not found", code: "WF_1100" });
  });
});

describe("POST /v1/workflows/executions/{execution_id}/terminate", () => {
  const call = (id: string) => invoke(terminate, at(`/v1/workflows/executions/${id}/terminate`, "/v1/workflows/executions/{execution_id}/terminate", { execution_id: id }));

  it("records the intent, stops the execution and closes the run TERMINATED, with no event", async () => {
    const run = await seedRun(caller.workspace, { executionId: "t-1" });

    const response = await call("t-1");

    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(machines.stopRun).toHaveBeenCalledExactlyOnceWith(run.executionArn, "Workflow.Terminated", "Terminated through the API");
    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "TERMINATED", intent: "terminate", endTime: NOW });
    expect(await runStore.getExecution(caller.workspace, "t-1")).toMatchObject({ status: "TERMINATED", endTime: NOW });
    expect(timers.disarmTimer.mock.calls.map((c) => c[0])).toEqual([`timeout-${run.runId}`, `cancel-${run.runId}`]);
    expect(await eventsOf("t-1")).toEqual([]);
  });

  it("refuses a closed execution with 409 WF_1102 and its status", async () => {
    await seedRun(caller.workspace, { executionId: "t-2", status: "COMPLETED" });

    const response = await call("t-2");

    expect(response.statusCode).toBe(409);
    expect(response.json).toEqual({ detail: expect.stringContaining("not running"), code: "WF_1102", status: "COMPLETED" });
    expect(machines.stopRun).not.toHaveBeenCalled();
  });

  it("answers 404 for another workspace's execution", async () => {
    await seedRun(randomUUID(), { executionId: "t-3" });

    expect((await call("t-3")).statusCode).toBe(404);
  });
});

describe("POST /v1/workflows/executions/{execution_id}/cancel", () => {
  const call = (id: string) => invoke(cancel, at(`/v1/workflows/executions/${id}/cancel`, "/v1/workflows/executions/{execution_id}/cancel", { execution_id: id }));

  it("stops a run with no activity in a worker's hands at once: CANCELED, with its event", async () => {
    const run = await seedRun(caller.workspace, { executionId: "c-1" });

    const response = await call("c-1");

    expect(response.statusCode).toBe(204);
    expect(machines.stopRun).toHaveBeenCalledExactlyOnceWith(run.executionArn, "Workflow.Canceled", "Canceled through the API");
    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "CANCELED", intent: "cancel", cancelRequested: true });
    expect(await eventsOf("c-1")).toEqual(["WORKFLOW_EXECUTION_CANCELED"]);
    expect(timers.armTimer).not.toHaveBeenCalled();
  });

  it("gives a claimed activity the grace period: cancel_requested now, a timer to stop it later", async () => {
    const run = await seedRun(caller.workspace, { executionId: "c-2" });
    await taskStore.create(aTask(run));
    expect(await taskStore.claimNext(caller.workspace, run.deploymentName, "w1")).toBeDefined();

    await call("c-2");

    expect(machines.stopRun).not.toHaveBeenCalled();
    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "RUNNING", intent: "cancel", cancelRequested: true });
    expect(timers.armTimer).toHaveBeenCalledExactlyOnceWith({ name: `cancel-${run.runId}`, at: new Date(Date.parse(NOW) + 10_000), payload: { kind: "cancel-grace", workspace: caller.workspace, runId: run.runId } });
    // Only the run's own tasks are read (its task lookups), not the workspace's.
    const query = dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input).find((i) => String(i.ExpressionAttributeValues?.[":prefix"]).startsWith("TASKOF#"));
    expect(query).toMatchObject({ ExpressionAttributeValues: { ":prefix": `TASKOF#${run.runId}#` } });
  });

  it("refuses a closed execution with 409 WF_1102", async () => {
    await seedRun(caller.workspace, { executionId: "c-3", status: "FAILED" });

    const response = await call("c-3");

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ code: "WF_1102", status: "FAILED" });
  });
});

describe("POST /v1/workflows/executions/terminate", () => {
  it("answers every id on its own and never fails as a whole", async () => {
    await seedRun(caller.workspace, { executionId: "b-1" });
    await seedRun(caller.workspace, { executionId: "b-2", status: "COMPLETED" });

    const response = await invoke(batchTerminate, aJsonEvent({ execution_ids: ["b-1", "b-2", "b-3"] }, { path: "/v1/workflows/executions/terminate", caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      results: {
        "b-1": { status: "success", error: null },
        "b-2": { status: "failure", error: expect.stringContaining("not running") },
        "b-3": { status: "failure", error: "Workflow execution 'b-3' not found" },
      },
    });
  });

  it("refuses an empty list or more than 100 ids with a 422", async () => {
    const empty = await invoke(batchTerminate, aJsonEvent({ execution_ids: [] }, { path: "/v1/workflows/executions/terminate", caller }));
    const many = await invoke(batchTerminate, aJsonEvent({ execution_ids: Array.from({ length: 101 }, (_, i) => `x${i}`) }, { path: "/v1/workflows/executions/terminate", caller }));

    expect(empty.statusCode).toBe(422);
    expect(many.statusCode).toBe(422);
  });
});

describe("POST /v1/workflows/executions/cancel", () => {
  it("cancels each id and reports an engine failure as a failure of that id alone", async () => {
    await seedRun(caller.workspace, { executionId: "bc-1" });
    await seedRun(caller.workspace, { executionId: "bc-2" });
    machines.stopRun.mockImplementation(async (arn: string) => {
      if (arn.endsWith((await runStore.getExecution(caller.workspace, "bc-2"))!.latestRunId)) throw new Error("throttled");
    });

    const response = await invoke(batchCancel, aJsonEvent({ execution_ids: ["bc-1", "bc-2"] }, { path: "/v1/workflows/executions/cancel", caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json.results).toEqual({ "bc-1": { status: "success", error: null }, "bc-2": { status: "failure", error: "An error occurred" } });
  });
});

describe("GET /v1/workflows/runs", () => {
  const list = (query: Record<string, string | string[]> = {}) => invoke(listRuns, anEvent({ path: "/v1/workflows/runs", query, caller }));

  it("lists runs newest first by start, paged by next_page_token", async () => {
    const runs = [];
    for (const day of [1, 2, 3]) runs.push(await seedRun(caller.workspace, { startTime: `2026-01-0${day}T00:00:00.000Z` }));

    const first = await list({ page_size: "2" });
    const second = await list({ page_size: "2", next_page_token: first.json.next_page_token });

    expect(first.statusCode).toBe(200);
    expect(first.json.executions.map((e: { run_id: string }) => e.run_id)).toEqual([runs[2]!.runId, runs[1]!.runId]);
    expect(first.json.executions[0]).not.toHaveProperty("result");
    expect(second.json.executions.map((e: { run_id: string }) => e.run_id)).toEqual([runs[0]!.runId]);
    expect(second.json.next_page_token).toBeNull();
  });

  it("sorts by end time over closed runs, and puts time bounds of the sort in the key condition", async () => {
    const early = await seedRun(caller.workspace, { status: "COMPLETED", startTime: "2026-01-05T00:00:00.000Z", endTime: "2026-01-05T00:01:00.000Z" });
    const late = await seedRun(caller.workspace, { status: "FAILED", startTime: "2026-01-01T00:00:00.000Z", endTime: "2026-01-09T00:00:00.000Z" });
    await seedRun(caller.workspace, { status: "RUNNING" });

    const response = await list({ sort_by: "end_time", order: "asc", end_time_after: "2026-01-02T00:00:00Z" });

    expect(response.json.executions.map((e: { run_id: string }) => e.run_id)).toEqual([early.runId, late.runId]);
    const query = dynamo.commandCalls(QueryCommand).at(-1)!.args[0].input;
    expect(query).toMatchObject({ IndexName: "byEnd", ScanIndexForward: true, ExpressionAttributeValues: { ":from": "2026-01-02T00:00:00.000Z" } });
  });

  it("filters by status, workflow, root, deployment and user with a filter expression", async () => {
    await seedRun(caller.workspace);

    await list({ status: ["COMPLETED", "FAILED"], root_execution_id: "r", deployment_name: "d", user_id: "u", search: "q" });

    const query = dynamo.commandCalls(QueryCommand).at(-1)!.args[0].input;
    expect(query.FilterExpression).toBe("#root = :root AND #st IN (:st0, :st1) AND #dep = :dep AND #user = :user AND (contains(#eid, :q) OR contains(#wn, :q))");
    expect(query.ExpressionAttributeValues).toMatchObject({ ":st0": "COMPLETED", ":st1": "FAILED", ":root": "r", ":dep": "d", ":user": "u", ":q": "q" });
  });

  it("refuses a token of another sort, or a forged one, with a 422 on next_page_token", async () => {
    for (const day of [1, 2]) await seedRun(caller.workspace, { startTime: `2026-01-0${day}T00:00:00.000Z` });
    const page = await list({ page_size: "1" });

    const otherSort = await list({ next_page_token: page.json.next_page_token, sort_by: "end_time" });
    const forged = await list({ next_page_token: "not-a-token" });

    expect(otherSort.statusCode).toBe(422);
    expect(forged.json).toEqual({ detail: [{ loc: ["query", "next_page_token"], msg: "Invalid page token", type: "value_error" }], code: "WF_1001" });
  });
});

describe("GET /v1/workflows/runs/{run_id}", () => {
  it("answers a run of the workspace and 404 for another's", async () => {
    const mine = await seedRun(caller.workspace, { status: "COMPLETED", result: 7 });
    const theirs = await seedRun(randomUUID());

    const found = await invoke(getRun, anEvent({ path: `/v1/workflows/runs/${mine.runId}`, pathParameters: { run_id: mine.runId }, caller }));
    const hidden = await invoke(getRun, anEvent({ path: `/v1/workflows/runs/${theirs.runId}`, pathParameters: { run_id: theirs.runId }, caller }));

    expect(found.json).toMatchObject({ run_id: mine.runId, status: "COMPLETED", result: 7 });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json.code).toBe("WF_1100");
  });
});
