import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/workers/heartbeat.js";
import { taskStore } from "../../../shared/store/workflows/tasks.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, invoke } from "../../support/builders.js";
import { aClaimedTask, aTaskCall } from "./task-setup.js";

const machines = vi.hoisted(() => ({ heartbeatTask: vi.fn(), completeTask: vi.fn(), failTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const caller = aCaller();

beforeEach(() => {
  machines.heartbeatTask.mockReset().mockResolvedValue(true);
});

describe("POST /v1/workflows/tasks/{task_id}/heartbeat", () => {
  it("keeps the claimed task alive through its token and answers that no cancel was asked", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "heartbeat", { details: { progress: 0.5 } }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ cancel_requested: false });
    expect(machines.heartbeatTask).toHaveBeenCalledExactlyOnceWith(task.token);
    expect((await taskStore.get(caller.workspace, task.taskId))!.lastHeartbeatMs).toEqual(expect.any(Number));
  });

  it("answers cancel_requested when the run was asked to cancel", async () => {
    const { task } = await aClaimedTask(dynamo, caller, { run: { cancelRequested: true } });

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "heartbeat"));

    expect(response.json).toStrictEqual({ cancel_requested: true });
  });

  it("refuses a task another worker claimed with 409 WF_1102, without touching the token", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "heartbeat", { worker_name: "w2" }));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ code: "WF_1102", status: "CLAIMED" });
    expect(response.json.detail).toContain("another worker");
    expect(machines.heartbeatTask).not.toHaveBeenCalled();
  });

  it("refuses a task nobody claimed yet with 409", async () => {
    const { task } = await aClaimedTask(dynamo, caller, { claimed: false });

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "heartbeat"));

    expect(response.statusCode).toBe(409);
    expect(response.json.status).toBe("PENDING");
  });

  it("expires the task and answers 409 when Step Functions no longer waits for it", async () => {
    machines.heartbeatTask.mockResolvedValue(false);
    const { task } = await aClaimedTask(dynamo, caller);

    const response = await invoke(handler, aTaskCall(caller, task.taskId, "heartbeat"));

    expect(response.statusCode).toBe(409);
    expect(response.json.status).toBe("EXPIRED");
    expect((await taskStore.get(caller.workspace, task.taskId))!.status).toBe("EXPIRED");
  });

  it("answers 404 WF_1100 for a task of another deployment, another workspace, or none", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    const otherDeployment = await invoke(handler, aTaskCall(caller, task.taskId, "heartbeat", { deployment_name: "elsewhere" }));
    const otherWorkspace = await invoke(handler, aTaskCall(aCaller(), task.taskId, "heartbeat"));
    const unknown = await invoke(handler, aTaskCall(caller, randomUUID(), "heartbeat"));

    for (const response of [otherDeployment, otherWorkspace, unknown]) {
      expect(response.statusCode).toBe(404);
      expect(response.json.code).toBe("WF_1100");
    }
    expect(machines.heartbeatTask).not.toHaveBeenCalled();
  });
});
