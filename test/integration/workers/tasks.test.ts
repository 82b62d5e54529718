import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { eventStore } from "../../../shared/store/workflows/events.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { taskStore } from "../../../shared/store/workflows/tasks.js";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { seededTasks, workersClient } from "../../support/workers-client.js";
import { aTask } from "../../support/workflow-builders.js";

// The tokens of seeded tasks belong to no execution: Step Functions' side of the task calls is stubbed
// here (the end-to-end test runs real executions).
const machines = vi.hoisted(() => ({ heartbeatTask: vi.fn(), completeTask: vi.fn(), failTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", async (original) => ({ ...(await original<object>()), ...machines }));

const { api, tenant } = useEmbeddedApi();
const worker = workersClient(api, tenant);

beforeEach(() => {
  machines.heartbeatTask.mockReset().mockResolvedValue(true);
  machines.completeTask.mockReset().mockResolvedValue(true);
  machines.failTask.mockReset().mockResolvedValue(true);
});

/** A seeded task, claimed by worker w1. */
async function claimed() {
  const { run, tasks } = await seededTasks(tenant, 1);
  const polled = await worker.poll();
  expect(polled.body.task.task_id).toBe(tasks[0]!.taskId);
  return { run, task: tasks[0]! };
}

const eventTypes = async (run: { workspace: string; rootExecutionId: string }) =>
  (await eventStore.listFrom(run.workspace, run.rootExecutionId, 0, 100)).map((e) => e.event.event_type);

describe("POST /v1/workflows/workers/poll", () => {
  it("hands each of 5 tasks to exactly one of 10 workers polling at once", async () => {
    const { tasks } = await seededTasks(tenant, 5);
    const pollers = Array.from({ length: 10 }, (_, i) => workersClient(api, tenant, { deployment: "pool", name: `w${i}` }));

    const answers = await Promise.all(pollers.map((p) => p.poll({ wait_seconds: 1 })));

    expect(answers.map((a) => a.status)).toStrictEqual(Array(10).fill(200));
    const handed = answers.map((a) => a.body.task?.task_id).filter(Boolean);
    expect(handed.toSorted()).toStrictEqual(tasks.map((t) => t.taskId).toSorted());
    for (const [i, answer] of answers.entries()) {
      if (!answer.body.task) continue;
      expect((await taskStore.get(tenant.caller.workspace, answer.body.task.task_id))!.workerName).toBe(`w${i}`);
    }
  });

  it("answers the oldest task first, without its token, and writes ACTIVITY_TASK_STARTED", async () => {
    const { run, tasks } = await seededTasks(tenant, 2);

    const reply = await worker.poll();

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      task: { task_id: tasks[0]!.taskId, activity: "summarize", input: { n: 0 }, workflow_name: run.workflowName, execution_id: run.executionId, run_id: run.runId, attempt: 1, heartbeat_seconds: 30, state: "Summarize" },
      restart_requested: false,
    });
    expect(JSON.stringify(reply.body)).not.toContain(tasks[0]!.token);
    expect(await eventTypes(run)).toStrictEqual(["ACTIVITY_TASK_STARTED"]);
  });

  it("waits for a task that comes while it polls", async () => {
    const { run } = await seededTasks(tenant, 0);
    const late = aTask(run);
    setTimeout(() => void taskStore.create(late), 300);

    const reply = await worker.poll({ wait_seconds: 3 });

    expect(reply.body.task.task_id).toBe(late.taskId);
  });

  it("answers {task: null} after the wait when the deployment is stopped", async () => {
    await seededTasks(tenant, 1, { stopped: true });

    const reply = await worker.poll({ wait_seconds: 0.2 });

    expect(reply.body).toStrictEqual({ task: null, restart_requested: false });
  });

  it("never hands a task to a worker of another workspace, even with the same deployment name", async () => {
    await seededTasks(tenant, 2);
    const intruder = await newTenant();
    await seededTasks(intruder, 0);

    const reply = await workersClient(api, intruder).poll({ wait_seconds: 0.2 });

    expect(reply.body).toStrictEqual({ task: null, restart_requested: false });
  });

  it("refuses a key without workflows:write with 403 WF_", async () => {
    const executor = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["workflow_executor"] });

    const reply = await workersClient(api, executor).poll();

    expect(reply.status).toBe(403);
    expect(reply.body.code).toMatch(/^WF_/);
  });
});

describe("POST /v1/workflows/tasks/{task_id}/heartbeat", () => {
  it("answers cancel_requested false while the run goes on, then true once a cancel was asked", async () => {
    const { run, task } = await claimed();

    const before = await worker.heartbeat(task.taskId, { details: { step: 1 } });
    await runStore.setIntent(run.workspace, run.runId, { cancelRequested: true });
    const after = await worker.heartbeat(task.taskId);

    expect(before.status).toBe(200);
    expect(before.body).toStrictEqual({ cancel_requested: false });
    expect(after.body).toStrictEqual({ cancel_requested: true });
    expect(machines.heartbeatTask).toHaveBeenCalledWith(task.token);
  });

  it("refuses a worker that did not claim the task with 409 WF_1102", async () => {
    const { task } = await claimed();

    const reply = await workersClient(api, tenant, { deployment: "pool", name: "w2" }).heartbeat(task.taskId);

    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ code: "WF_1102", status: "CLAIMED" });
  });

  it("answers 404 WF_1100 to another workspace's key with the task's id", async () => {
    const { task } = await claimed();
    const intruder = await newTenant();

    const reply = await workersClient(api, intruder).heartbeat(task.taskId);

    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe("WF_1100");
  });
});

describe("POST /v1/workflows/tasks/{task_id}/complete", () => {
  it("completes the task once: the result goes to its token, a second completion is 409", async () => {
    const { run, task } = await claimed();

    const first = await worker.complete(task.taskId, { result: { summary: "ok" } });
    const second = await worker.complete(task.taskId, { result: { summary: "again" } });

    expect(first.status).toBe(200);
    expect(first.body).toStrictEqual({ status: "completed" });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: "WF_1102", status: "COMPLETED" });
    expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(task.token, { summary: "ok" });
    expect(await eventTypes(run)).toStrictEqual(["ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED"]);
  });

  it("lets one of two racing completions through", async () => {
    const { task } = await claimed();

    const replies = await Promise.all([worker.complete(task.taskId, { result: 1 }), worker.complete(task.taskId, { result: 2 })]);

    expect(replies.map((r) => r.status).toSorted()).toStrictEqual([200, 409]);
    expect(machines.completeTask).toHaveBeenCalledTimes(1);
  });

  it("answers 404 for an unknown task and for a worker of another deployment", async () => {
    const { task } = await claimed();

    const unknown = await worker.complete(randomUUID(), { result: 1 });
    const elsewhere = await workersClient(api, tenant, { deployment: "other", name: "w1" }).complete(task.taskId, { result: 1 });

    expect(unknown.status).toBe(404);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.code).toBe("WF_1100");
  });

  it("answers 404 to another workspace's key and leaves the task claimed", async () => {
    const { task } = await claimed();

    const reply = await workersClient(api, await newTenant()).complete(task.taskId, { result: 1 });

    expect(reply.status).toBe(404);
    expect((await taskStore.get(tenant.caller.workspace, task.taskId))!.status).toBe("CLAIMED");
  });
});

describe("POST /v1/workflows/tasks/{task_id}/fail", () => {
  it("fails the token with the error's type and writes ACTIVITY_TASK_FAILED", async () => {
    const { run, task } = await claimed();

    const reply = await worker.fail(task.taskId, { error: { type: "Timeout", message: "upstream slow" }, retryable: true });

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ status: "failed" });
    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(task.token, "Timeout", "upstream slow");
    expect(await eventTypes(run)).toStrictEqual(["ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_FAILED"]);
  });

  it("refuses to fail a task that was completed with 409", async () => {
    const { task } = await claimed();
    await worker.complete(task.taskId, { result: 1 });

    const reply = await worker.fail(task.taskId, { error: { message: "late" } });

    expect(reply.status).toBe(409);
    expect(machines.failTask).not.toHaveBeenCalled();
  });
});

describe("GET /v1/workflows/workers/whoami", () => {
  it("answers the key's workspace, organization and principal, with no Temporal address", async () => {
    const reply = await worker.whoami();

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      workspace_id: tenant.caller.workspace,
      organization_id: tenant.caller.organization,
      principal_id: tenant.caller.principal,
      principal_type: "user",
      scheduler_url: null,
      namespace: tenant.caller.workspace,
      tls: true,
    });
  });
});
