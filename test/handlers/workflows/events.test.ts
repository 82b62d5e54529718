import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as listEvents } from "../../../functions/workflows/list-events.js";
import { handler as streamEvents } from "../../../functions/workflows/stream-events.js";
import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../../shared/config.js";
import { eventOf } from "../../../shared/domain/workflows/events.js";
import { documents } from "../../../shared/store/client.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke, invokeStream } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { seedEvents, seedRun, sseFrames } from "../../support/workflow-builders.js";

const dynamo = mockDynamo();
const caller = aCaller();

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
});

describe("GET /v1/workflows/events/list", () => {
  const list = (query: Record<string, string> = {}) => invoke(listEvents, anEvent({ path: "/v1/workflows/events/list", query, caller }));

  it("lists a root execution's events in sequence order, paged by cursor", async () => {
    const run = await seedRun(caller.workspace, { executionId: "root-1", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const first = await list({ root_workflow_exec_id: "root-1", limit: "3" });
    const second = await list({ root_workflow_exec_id: "root-1", limit: "3", cursor: first.json.next_cursor });

    expect(first.statusCode).toBe(200);
    expect(first.json.events.map((e: { event_type: string }) => e.event_type)).toEqual(["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED"]);
    expect(first.json.events[0]).toMatchObject({ workflow_exec_id: "root-1", workflow_run_id: run.runId, root_workflow_exec_id: "root-1", parent_workflow_exec_id: null });
    // Microseconds: nanoseconds are past JavaScript's safe integers, which the official SDK refuses.
    expect(first.json.events[0].event_timestamp).toBe(Date.parse(run.startTime) * 1000);
    expect(second.json).toMatchObject({ events: [{ event_type: "WORKFLOW_EXECUTION_COMPLETED" }], next_cursor: null });
  });

  it("finds the root through an execution id or a run id, keeping that one's events", async () => {
    const run = await seedRun(caller.workspace, { executionId: "root-2" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);

    const byExecution = await list({ workflow_exec_id: "root-2" });
    const byRun = await list({ workflow_run_id: run.runId });
    const unknown = await list({ workflow_exec_id: "nobody" });

    expect(byExecution.json.events).toHaveLength(1);
    expect(byRun.json.events).toHaveLength(1);
    expect(unknown.json).toEqual({ events: [], next_cursor: null });
  });

  it("lists the workspace's latest events when no id is given, newest first", async () => {
    const a = await seedRun(caller.workspace, { executionId: "w-a" });
    const b = await seedRun(caller.workspace, { executionId: "w-b" });
    await seedEvents(a, ["WORKFLOW_EXECUTION_STARTED"], 1_000);
    await seedEvents(b, ["WORKFLOW_EXECUTION_STARTED"], 2_000);
    await seedEvents(await seedRun(randomUUID()), ["WORKFLOW_EXECUTION_STARTED"], 3_000);

    const first = await list({ limit: "1" });
    const second = await list({ limit: "1", cursor: first.json.next_cursor });

    expect(first.json.events.map((e: { workflow_exec_id: string }) => e.workflow_exec_id)).toEqual(["w-b"]);
    expect(second.json.events.map((e: { workflow_exec_id: string }) => e.workflow_exec_id)).toEqual(["w-a"]);
  });

  it("refuses a cursor of another listing with a 422", async () => {
    const run = await seedRun(caller.workspace, { executionId: "root-3" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED"]);
    const page = await list({ root_workflow_exec_id: "root-3", limit: "1" });

    const response = await list({ root_workflow_exec_id: "other", cursor: page.json.next_cursor });

    expect(response.statusCode).toBe(422);
    expect(response.json.code).toBe("WF_1001");
  });
});

describe("GET /v1/workflows/events/stream", () => {
  const stream = (query: Record<string, string | string[]>, headers: Record<string, string> = {}) =>
    invokeStream(streamEvents, anEvent({ path: "/v1/workflows/events/stream", query: { scope: "*", workflow_exec_id: "*", parent_workflow_exec_id: "*", ...query }, headers, caller }));

  it("replays a closed root's events as workflow.event frames and ends after its closing event", async () => {
    const run = await seedRun(caller.workspace, { executionId: "s-1", status: "COMPLETED", result: { n: 1 } });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const response = await stream({ root_workflow_exec_id: "s-1" });

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.metadata?.headers?.["content-type"]).toBe("text/event-stream");
    const frames = sseFrames(response.body);
    expect(frames.map((f) => [f.id, f.event, f.data.data.event_type])).toEqual([
      ["1", "workflow.event", "WORKFLOW_EXECUTION_STARTED"],
      ["2", "workflow.event", "ACTIVITY_TASK_STARTED"],
      ["3", "workflow.event", "WORKFLOW_EXECUTION_COMPLETED"],
    ]);
    expect(frames[0]!.data).toEqual({
      stream: "workflow_events",
      timestamp: run.startTime,
      data: expect.objectContaining({ workflow_exec_id: "s-1", event_type: "WORKFLOW_EXECUTION_STARTED" }),
      workflow_context: { namespace: caller.workspace, workflow_name: run.workflowName, workflow_exec_id: "s-1", parent_workflow_exec_id: null, root_workflow_exec_id: "s-1" },
      metadata: {},
      broker_sequence: 1,
    });
  });

  it("resumes after Last-Event-ID, or from start_seq inclusive", async () => {
    const run = await seedRun(caller.workspace, { executionId: "s-2", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const resumed = await stream({ workflow_exec_id: "s-2" }, { "Last-Event-ID": "1" });
    const fromSeq = await stream({ workflow_exec_id: "s-2", start_seq: "3" });

    expect(sseFrames(resumed.body).map((f) => f.id)).toEqual(["2", "3"]);
    expect(sseFrames(fromSeq.body).map((f) => f.id)).toEqual(["3"]);
  });

  it("follows a running root live until its closing event", async () => {
    const run = await seedRun(caller.workspace, { executionId: "s-3" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);
    setTimeout(async () => {
      await seedEvents(run, ["ACTIVITY_TASK_STARTED"]);
      await runStore.transition(caller.workspace, run.runId, "COMPLETED", { endTime: new Date().toISOString() });
      await seedEvents(run, ["WORKFLOW_EXECUTION_COMPLETED"]);
    }, 300);

    const response = await stream({ root_workflow_exec_id: "s-3" });

    expect(sseFrames(response.body).map((f) => f.data.data.event_type)).toEqual(["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
  });

  it("waits for a sequence a writer has taken but not written yet, and sends every event in order", async () => {
    const run = await seedRun(caller.workspace, { executionId: "s-gap" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);
    // A writer takes sequence 2 (the counter) and is slow to write its event; another writes 3 meanwhile.
    const pk = `EVT#${caller.workspace}#s-gap`;
    await documents.send(new UpdateCommand({ TableName: tableName("executions"), Key: { pk, sk: "COUNTER" }, UpdateExpression: "ADD #seq :one", ExpressionAttributeNames: { "#seq": "seq" }, ExpressionAttributeValues: { ":one": 1 } }));
    await seedEvents(run, ["ACTIVITY_TASK_STARTED"]);
    setTimeout(async () => {
      const late = eventOf(run, "ACTIVITY_TASK_COMPLETED", {}, { id: "late", nowMs: Date.now() });
      await documents.send(new PutCommand({ TableName: tableName("executions"), Item: { pk, sk: "SEQ#000000000002", workspace: caller.workspace, seq: 2, event: late } }));
      await runStore.transition(caller.workspace, run.runId, "COMPLETED", { endTime: new Date().toISOString() });
      await seedEvents(run, ["WORKFLOW_EXECUTION_COMPLETED"]);
    }, 300);

    const response = await stream({ root_workflow_exec_id: "s-gap" });

    expect(sseFrames(response.body).map((f) => [f.id, f.data.data.event_type])).toEqual([
      ["1", "WORKFLOW_EXECUTION_STARTED"],
      ["2", "ACTIVITY_TASK_COMPLETED"],
      ["3", "ACTIVITY_TASK_STARTED"],
      ["4", "WORKFLOW_EXECUTION_COMPLETED"],
    ]);
  });

  it("goes past a sequence whose writer never wrote it, after waiting for it", async () => {
    const run = await seedRun(caller.workspace, { executionId: "s-lost", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);
    const pk = `EVT#${caller.workspace}#s-lost`;
    await documents.send(new UpdateCommand({ TableName: tableName("executions"), Key: { pk, sk: "COUNTER" }, UpdateExpression: "ADD #seq :one", ExpressionAttributeNames: { "#seq": "seq" }, ExpressionAttributeValues: { ":one": 1 } }));
    await seedEvents(run, ["WORKFLOW_EXECUTION_COMPLETED"]);

    const response = await stream({ root_workflow_exec_id: "s-lost" });

    expect(sseFrames(response.body).map((f) => f.id)).toEqual(["1", "3"]);
  });

  it("ends when the root closed without an event (terminated) once everything is sent", async () => {
    const run = await seedRun(caller.workspace, { executionId: "s-4", status: "TERMINATED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);

    const response = await stream({ root_workflow_exec_id: "s-4" });

    expect(sseFrames(response.body)).toHaveLength(1);
  });

  it("keeps only the asked event types and scope", async () => {
    const run = await seedRun(caller.workspace, { executionId: "s-5", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const types = await stream({ root_workflow_exec_id: "s-5", workflow_event_types: ["ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"] });
    const activities = await stream({ root_workflow_exec_id: "s-5", scope: "activity" });

    expect(sseFrames(types.body).map((f) => f.id)).toEqual(["3", "4"]);
    expect(sseFrames(activities.body).map((f) => f.id)).toEqual(["2", "3"]);
  });

  it("refuses a request naming no execution (`*` is not a name) with a 422, and an unknown one with 404", async () => {
    const none = await stream({ root_workflow_exec_id: "*" });
    const unknown = await stream({ root_workflow_exec_id: "ghost" });

    expect(none.metadata?.statusCode).toBe(422);
    expect(none.json).toEqual({
      detail: [{ loc: ["query", "root_workflow_exec_id"], msg: "One of root_workflow_exec_id, parent_workflow_exec_id or workflow_exec_id is required", type: "missing" }],
      code: "WF_1001",
    });
    expect(unknown.metadata?.statusCode).toBe(404);
    expect(unknown.json.code).toBe("WF_1100");
  });
});
