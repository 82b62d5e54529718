import { QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/workers/poll.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { taskStore } from "../../../shared/store/workflows/tasks.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aDeployment, aRun, aTask } from "../../support/workflow-builders.js";

const dynamo = mockDynamo();
const caller = aCaller();

const poll = (body: Record<string, unknown>) => aJsonEvent({ deployment_name: "pool", worker_name: "w1", wait_seconds: 0, ...body }, { path: "/v1/workflows/workers/poll", caller });

async function seeded(options: { stopped?: boolean; runStatus?: "RUNNING" | "CANCELED" } = {}) {
  const tables = serveTables(dynamo, {}, { writes: true });
  await workflowRegistry.ensureDeployment(aDeployment({ workspace: caller.workspace, stopped: options.stopped ?? false }));
  const run = aRun({ workspace: caller.workspace, deploymentName: "pool", workflowName: "summarize", status: options.runStatus ?? "RUNNING" });
  await runStore.start(run, null);
  return { tables, run };
}

describe("POST /v1/workflows/workers/poll", () => {
  it("claims the oldest pending task of the deployment for the worker and answers it without its token", async () => {
    const { run } = await seeded();
    const older = aTask(run, { createdAtMs: Date.now() - 2000, input: { text: "first" } });
    const newer = aTask(run, { createdAtMs: Date.now() - 1000, input: { text: "second" } });
    await taskStore.create(newer);
    await taskStore.create(older);

    const response = await invoke(handler, poll({}));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      task: {
        task_id: older.taskId,
        activity: "summarize",
        input: { text: "first" },
        workflow_name: run.workflowName,
        execution_id: run.executionId,
        run_id: run.runId,
        attempt: 1,
        heartbeat_seconds: 30,
        state: "Summarize",
      },
      restart_requested: false,
    });
    expect(response.body).not.toContain("token");
    const claimed = await taskStore.get(caller.workspace, older.taskId);
    expect(claimed).toMatchObject({ status: "CLAIMED", workerName: "w1", claimedAtMs: expect.any(Number), lastHeartbeatMs: expect.any(Number) });
  });

  it("claims with a write conditional on the task still being PENDING, and takes it out of the queue", async () => {
    const { run } = await seeded();
    await taskStore.create(aTask(run));

    await invoke(handler, poll({}));

    const claim = dynamo.commandCalls(UpdateCommand).map((c) => c.args[0].input).find((u) => u.ExpressionAttributeValues?.[":v0"] === "CLAIMED")!;
    expect(claim.ConditionExpression).toBe("attribute_exists(sk) AND #status IN (:from0)");
    expect(claim.ExpressionAttributeValues).toMatchObject({ ":from0": "PENDING" });
    expect(claim.UpdateExpression).toContain("REMOVE #remove");
    expect(claim.ExpressionAttributeNames).toMatchObject({ "#remove": "queueKey" });
  });

  it("writes ACTIVITY_TASK_STARTED with the task's input when it hands a task out", async () => {
    const { tables, run } = await seeded();
    const task = aTask(run);
    await taskStore.create(task);

    await invoke(handler, poll({}));

    const events = tables.items("executions").filter((item) => String(item.sk).startsWith("SEQ#"));
    expect(events.map((e) => (e.event as { event_type: string; attributes: unknown }).event_type)).toStrictEqual(["ACTIVITY_TASK_STARTED"]);
    expect((events[0]!.event as { attributes: unknown }).attributes).toStrictEqual({ task_id: task.taskId, activity_name: "summarize", input: { type: "json", value: { text: "hello" }, encoding_options: [] } });
  });

  it("answers {task: null} once the wait is over and nothing came", async () => {
    await seeded();
    const started = Date.now();

    const response = await invoke(handler, poll({ wait_seconds: 0.3 }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ task: null, restart_requested: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // It looked again in between, with a growing pause (100 ms, then 150 ms…).
    expect(dynamo.commandCalls(QueryCommand).length).toBeGreaterThanOrEqual(2);
  });

  it("hands a task that arrives during the wait to the waiting worker", async () => {
    const { run } = await seeded();
    const task = aTask(run);
    setTimeout(() => void taskStore.create(task), 150);

    const response = await invoke(handler, poll({ wait_seconds: 2 }));

    expect(response.json.task.task_id).toBe(task.taskId);
  });

  it("only hands out tasks of the activities the worker names", async () => {
    const { run } = await seeded();
    await taskStore.create(aTask(run, { activity: "summarize" }));
    const wanted = aTask(run, { activity: "read_file", state: "Read" });
    await taskStore.create(wanted);

    const response = await invoke(handler, poll({ activities: ["read_file"] }));

    expect(response.json.task.task_id).toBe(wanted.taskId);
  });

  it("gives a stopped deployment no tasks", async () => {
    const { run } = await seeded({ stopped: true });
    const task = aTask(run);
    await taskStore.create(task);

    const response = await invoke(handler, poll({}));

    expect(response.json).toStrictEqual({ task: null, restart_requested: false });
    expect((await taskStore.get(caller.workspace, task.taskId))!.status).toBe("PENDING");
  });

  it("expires a task whose run is no longer running instead of handing it out", async () => {
    const { run } = await seeded({ runStatus: "CANCELED" });
    const task = aTask(run);
    await taskStore.create(task);

    const response = await invoke(handler, poll({}));

    expect(response.json).toStrictEqual({ task: null, restart_requested: false });
    expect(await taskStore.get(caller.workspace, task.taskId)).toMatchObject({ status: "EXPIRED", closedAtMs: expect.any(Number) });
  });

  it("never sees another deployment's or another workspace's tasks", async () => {
    const { run } = await seeded();
    await taskStore.create(aTask({ ...run, deploymentName: "other" }));
    await taskStore.create(aTask({ ...run, workspace: aCaller().workspace }));

    const response = await invoke(handler, poll({}));

    expect(response.json).toStrictEqual({ task: null, restart_requested: false });
  });

  it("answers at once for a deployment nobody registered, and records no worker for it", async () => {
    const { tables } = await seeded();
    const started = Date.now();

    const response = await invoke(handler, poll({ deployment_name: "never-registered", wait_seconds: 5 }));

    expect(response.json).toStrictEqual({ task: null, restart_requested: false });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(tables.items("workflows").filter((item) => String(item.sk).startsWith("WORKER#"))).toStrictEqual([]);
  });

  it("counts as the worker's heartbeat", async () => {
    const { tables } = await seeded();

    await invoke(handler, poll({ worker_name: "host-7" }));

    const worker = tables.items("workflows").find((item) => item.sk === "WORKER#host-7");
    expect(worker).toMatchObject({ workspace: caller.workspace, deploymentName: "pool", name: "host-7", lastHeartbeatMs: expect.any(Number), workflows: [], principal: caller.keyId });
  });

  it.each([
    ["a deployment name with a space", { deployment_name: "my pool" }],
    ["a wait over 20 s", { wait_seconds: 21 }],
    ["no worker name", { worker_name: undefined }],
  ])("refuses %s with 422 in the workflow envelope", async (_, body) => {
    serveTables(dynamo, {}, { writes: true });

    const response = await invoke(handler, poll(body));

    expect(response.statusCode).toBe(422);
    expect(response.json).toMatchObject({ detail: expect.any(Array), code: "WF_1001" });
  });
});
