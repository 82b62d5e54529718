import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/workers/complete.js";
import { taskStore } from "../../../shared/store/workflows/tasks.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, invoke } from "../../support/builders.js";
import { aClaimedTask, aTaskCall, eventsSeenOnDelivery } from "./task-setup.js";

const machines = vi.hoisted(() => ({ heartbeatTask: vi.fn(), completeTask: vi.fn(), failTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const caller = aCaller();

beforeEach(() => {
  machines.completeTask.mockReset().mockResolvedValue(true);
});

describe("POST /v1/workflows/tasks/{task_id}/complete", () => {
  it("completes the task's token with the result, closes the task and writes ACTIVITY_TASK_COMPLETED", async () => {
    const { task, events } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "complete", { result: { summary: "short" } }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ status: "completed" });
    expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(task.token, { summary: "short" });
    expect(await taskStore.get(caller.workspace, task.taskId)).toMatchObject({ status: "COMPLETED", result: { summary: "short" }, delivered: true, closedAtMs: expect.any(Number) });
    expect(events().map((e) => e.event_type)).toStrictEqual(["ACTIVITY_TASK_COMPLETED"]);
    expect(events()[0]!.attributes).toStrictEqual({ task_id: task.taskId, activity_name: "summarize", result: { type: "json", value: { summary: "short" }, encoding_options: [] } });
  });

  it("keeps the closed task for a week (TTL)", async () => {
    const { tables, task } = await aClaimedTask(dynamo, caller);

    await invoke(handler, aTaskCall(caller, task.taskId, "complete", { result: 1 }));

    const item = tables.items("executions").find((i) => i.sk === `TASK#${task.taskId}`)!;
    expect(item.ttl).toBeGreaterThan(Date.now() / 1000 + 6.9 * 24 * 3600);
  });

  it("refuses a second completion with 409, leaving the first result", async () => {
    const { task } = await aClaimedTask(dynamo, caller);
    await invoke(handler, aTaskCall(caller, task.taskId, "complete", { result: "first" }));

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "complete", { result: "second" }));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ code: "WF_1102", status: "COMPLETED" });
    expect((await taskStore.get(caller.workspace, task.taskId))!.result).toBe("first");
    expect(machines.completeTask).toHaveBeenCalledTimes(1);
  });

  it("refuses a worker that did not claim the task with 409", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "complete", { worker_name: "w2", result: 1 }));

    expect(response.statusCode).toBe(409);
    expect((await taskStore.get(caller.workspace, task.taskId))!.status).toBe("CLAIMED");
  });

  it("writes ACTIVITY_TASK_COMPLETED before the program gets the result, so the run's next events (and its close) come after it", async () => {
    const { task, events } = await aClaimedTask(dynamo, caller);
    const seenByTheProgram = eventsSeenOnDelivery(machines.completeTask, events);

    await invoke(handler, aTaskCall(caller, task.taskId, "complete", { result: 1 }));

    expect(seenByTheProgram()).toStrictEqual(["ACTIVITY_TASK_COMPLETED"]);
  });

  it("keeps the result but answers 409 when Step Functions no longer waits for it", async () => {
    machines.completeTask.mockResolvedValue(false);
    const { task, events } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "complete", { result: 7 }));

    expect(response.statusCode).toBe(409);
    // Not delivered: a run the local engine resumes takes this result instead of running the activity again (its
    // history says so: the run is still open).
    const kept = await taskStore.get(caller.workspace, task.taskId);
    expect(kept).toMatchObject({ status: "COMPLETED", result: 7 });
    expect(kept!.delivered).toBeUndefined();
    expect(events().map((e) => e.event_type)).toStrictEqual(["ACTIVITY_TASK_COMPLETED"]);
  });

  it("leaves a closed run's history as it is: a completion that comes after the run ended writes no event", async () => {
    machines.completeTask.mockResolvedValue(false);
    const { task, events } = await aClaimedTask(dynamo, caller, { run: { status: "CANCELED" } });

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "complete", { result: 7 }));

    expect(response.statusCode).toBe(409);
    expect(events()).toStrictEqual([]);
  });

  it("refuses a result over 256 KiB with 413 before writing anything", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "complete", { result: "x".repeat(262_145) }));

    expect(response.statusCode).toBe(413);
    expect(response.json.code).toMatch(/^WF_/);
    expect((await taskStore.get(caller.workspace, task.taskId))!.status).toBe("CLAIMED");
  });

  it("answers 404 for another workspace's task, another deployment's, or an unknown one", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    for (const event of [
      aTaskCall(aCaller(), task.taskId, "complete", { result: 1 }),
      aTaskCall(caller, task.taskId, "complete", { deployment_name: "elsewhere", result: 1 }),
      aTaskCall(caller, randomUUID(), "complete", { result: 1 }),
    ]) {
      const response = await invoke(handler, event);
      expect(response.statusCode).toBe(404);
      expect(response.json.code).toBe("WF_1100");
    }
    expect((await taskStore.get(caller.workspace, task.taskId))!.status).toBe("CLAIMED");
  });
});
