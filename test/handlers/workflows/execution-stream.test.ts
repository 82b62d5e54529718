import { beforeEach, describe, expect, it } from "vitest";
import { handler as streamExecution } from "../../../functions/workflows/stream-execution.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invokeStream } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { seedEvents, seedRun, sseFrames } from "../../support/workflow-builders.js";

const dynamo = mockDynamo();
const caller = aCaller();

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
});

const stream = (id: string, query: Record<string, string> = {}, headers: Record<string, string> = {}, who = caller) =>
  invokeStream(
    streamExecution,
    anEvent({ path: `/v1/workflows/executions/${id}/stream`, resource: "/v1/workflows/executions/{execution_id}/stream", pathParameters: { execution_id: id }, query, headers, caller: who }),
  );

describe("GET /v1/workflows/executions/{execution_id}/stream", () => {
  it("replays a closed execution's events as workflow.event frames and ends after its closing event", async () => {
    const run = await seedRun(caller.workspace, { executionId: "x-1", status: "COMPLETED", result: { n: 1 } });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const response = await stream("x-1", { event_source: "DATABASE" });

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.metadata?.headers?.["content-type"]).toBe("text/event-stream");
    const frames = sseFrames(response.body);
    expect(frames.map((f) => [f.id, f.event, f.data.data.event_type])).toEqual([
      ["1", "workflow.event", "WORKFLOW_EXECUTION_STARTED"],
      ["2", "workflow.event", "ACTIVITY_TASK_STARTED"],
      ["3", "workflow.event", "ACTIVITY_TASK_COMPLETED"],
      ["4", "workflow.event", "WORKFLOW_EXECUTION_COMPLETED"],
    ]);
    expect(frames[0]!.data).toMatchObject({ stream: "workflow_events", broker_sequence: 1, workflow_context: { namespace: caller.workspace, workflow_exec_id: "x-1", root_workflow_exec_id: "x-1" } });
  });

  it("resumes after last_event_id, the Last-Event-ID header winning over the query parameter", async () => {
    const run = await seedRun(caller.workspace, { executionId: "x-2", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const byQuery = await stream("x-2", { last_event_id: "1" });
    const byHeader = await stream("x-2", { last_event_id: "1" }, { "Last-Event-ID": "2" });

    expect(sseFrames(byQuery.body).map((f) => f.id)).toEqual(["2", "3"]);
    expect(sseFrames(byHeader.body).map((f) => f.id)).toEqual(["3"]);
  });

  it("follows a running execution live until it closes", async () => {
    const run = await seedRun(caller.workspace, { executionId: "x-3" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);
    setTimeout(async () => {
      await seedEvents(run, ["ACTIVITY_TASK_STARTED"]);
      await runStore.transition(caller.workspace, run.runId, "COMPLETED", { endTime: new Date().toISOString() });
      await seedEvents(run, ["WORKFLOW_EXECUTION_COMPLETED"]);
    }, 300);

    const response = await stream("x-3");

    expect(sseFrames(response.body).map((f) => f.data.data.event_type)).toEqual(["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
  });

  it("sends a child execution's own events only, and ends at the child's close while its root runs on", async () => {
    const root = await seedRun(caller.workspace, { executionId: "x-root" });
    const child = await seedRun(caller.workspace, { executionId: "x-child", rootExecutionId: "x-root", parentExecutionId: "x-root", status: "COMPLETED" });
    await seedEvents(root, ["WORKFLOW_EXECUTION_STARTED"]);
    await seedEvents(child, ["WORKFLOW_EXECUTION_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
    await seedEvents(root, ["ACTIVITY_TASK_STARTED"]);

    const response = await stream("x-child");

    expect(sseFrames(response.body).map((f) => [f.id, f.data.data.workflow_exec_id, f.data.data.event_type])).toEqual([
      ["2", "x-child", "WORKFLOW_EXECUTION_STARTED"],
      ["3", "x-child", "WORKFLOW_EXECUTION_COMPLETED"],
    ]);
  });

  it("answers 404 WF_1100 for an unknown execution or another workspace's, and 422 for a bad resume position, before any frame", async () => {
    const theirs = await seedRun(aCaller().workspace, { executionId: "x-theirs", status: "COMPLETED" });
    await seedEvents(theirs, ["WORKFLOW_EXECUTION_STARTED"]);
    await seedRun(caller.workspace, { executionId: "x-4", status: "COMPLETED" });

    const unknown = await stream("ghost");
    const other = await stream("x-theirs");
    const bad = await stream("x-4", { last_event_id: "abc" });

    expect(unknown.metadata?.statusCode).toBe(404);
    expect(unknown.json).toMatchObject({ code: "WF_1100" });
    expect(other.metadata?.statusCode).toBe(404);
    expect(bad.metadata?.statusCode).toBe(422);
    expect(bad.json.code).toBe("WF_1001");
  });
});
