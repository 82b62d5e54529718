import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/workers/fail.js";
import { taskStore } from "../../../shared/store/workflows/tasks.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, invoke } from "../../support/builders.js";
import { aClaimedTask, aTaskCall, eventsSeenOnDelivery } from "./task-setup.js";

const machines = vi.hoisted(() => ({ heartbeatTask: vi.fn(), completeTask: vi.fn(), failTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const caller = aCaller();

beforeEach(() => {
  machines.failTask.mockReset().mockResolvedValue(true);
});

describe("POST /v1/workflows/tasks/{task_id}/fail", () => {
  it("fails the token with the error's type, so the program's Retry and Catch match on it, and writes ACTIVITY_TASK_FAILED", async () => {
    const { task, events } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "fail", { error: { type: "QuotaExceeded", message: "out of quota" }, retryable: false }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ status: "failed" });
    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(task.token, "QuotaExceeded", "out of quota");
    expect(await taskStore.get(caller.workspace, task.taskId)).toMatchObject({ status: "FAILED", failure: { message: "out of quota", type: "QuotaExceeded" }, retryable: false });
    expect(events()).toStrictEqual([
      expect.objectContaining({
        event_type: "ACTIVITY_TASK_FAILED",
        attributes: { task_id: task.taskId, activity_name: "summarize", attempt: 1, failure: { message: "out of quota", type: "QuotaExceeded" } },
      }),
    ]);
  });

  it("writes ACTIVITY_TASK_FAILED before the program's Retry or Catch sees the error, so what the run does next comes after it", async () => {
    const { task, events } = await aClaimedTask(dynamo, caller);
    const seenByTheProgram = eventsSeenOnDelivery(machines.failTask, events);

    await invoke(handler, aTaskCall(caller, task.taskId, "fail", { error: { message: "boom" } }));

    expect(seenByTheProgram()).toStrictEqual(["ACTIVITY_TASK_FAILED"]);
  });

  it("names the error ActivityError when the worker gives no type", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    await invoke(handler, aTaskCall(caller, task.taskId, "fail", { error: { message: "boom" } }));

    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(task.token, "ActivityError", "boom");
  });

  it("refuses a task that is already closed with 409", async () => {
    const { task } = await aClaimedTask(dynamo, caller);
    await invoke(handler, aTaskCall(caller, task.taskId, "fail", { error: { message: "boom" } }));

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "fail", { error: { message: "again" } }));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ code: "WF_1102", status: "FAILED" });
    expect(machines.failTask).toHaveBeenCalledTimes(1);
  });

  it("refuses a task that is still pending with 409", async () => {
    const { task } = await aClaimedTask(dynamo, caller, { claimed: false });

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "fail", { error: { message: "boom" } }));

    expect(response.statusCode).toBe(409);
    expect(machines.failTask).not.toHaveBeenCalled();
  });

  it("answers 404 for another workspace's task or an unknown one", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    const other = await invoke(handler, aTaskCall(aCaller(), task.taskId, "fail", { error: { message: "x" } }));
    const unknown = await invoke(handler, aTaskCall(caller, randomUUID(), "fail", { error: { message: "x" } }));

    expect(other.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
  });

  it("refuses an error without a message with 422", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "fail", { error: { type: "X" } }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "error", "message"]);
  });
});
