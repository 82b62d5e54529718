/**
 * Hardening beyond register (decision 0023): a hardened deployment's polls and task calls come from its
 * authorized principals only, and an on-behalf-of workflow registers only into a hardened deployment.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as complete } from "../../../functions/workers/complete.js";
import { handler as heartbeat } from "../../../functions/workers/heartbeat.js";
import { handler as poll } from "../../../functions/workers/poll.js";
import { handler as register } from "../../../functions/workers/register.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { taskStore } from "../../../shared/store/workflows/tasks.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aDeployment } from "../../support/workflow-builders.js";
import { EXAMPLE_ACTIVITIES, exampleProgram } from "../../support/workflow-programs.js";
import { aClaimedTask, aTaskCall } from "./task-setup.js";

const machines = vi.hoisted(() => ({ publishProgram: vi.fn(), dispatcherArn: vi.fn(), heartbeatTask: vi.fn(), completeTask: vi.fn(), failTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const owner = aCaller();
const stranger = aCaller({ workspace: owner.workspace, organization: owner.organization, keyId: "fedcba9876543210" });

beforeEach(() => {
  machines.dispatcherArn.mockReset().mockReturnValue("arn:aws:lambda:eu-west-1:123456789012:function:dispatcher");
  machines.publishProgram.mockReset().mockImplementation(async (workflowId: string) => `arn:aws:states:eu-west-1:123456789012:stateMachine:wf-${workflowId}:1`);
  machines.heartbeatTask.mockReset().mockResolvedValue(true);
  machines.completeTask.mockReset().mockResolvedValue(true);
});

const harden = (principals: string[]) => workflowRegistry.updateDeployment(owner.workspace, "pool", { principals });

describe("POST /v1/workflows/workers/poll of a hardened deployment", () => {
  it("answers 403 deployment_hardened to another principal, claiming nothing; its own principal's poll gets the task", async () => {
    const { task } = await aClaimedTask(dynamo, owner, { claimed: false });
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: owner.workspace, name: "pool" }));
    await harden([owner.keyId]);
    const body = { deployment_name: "pool", worker_name: "w1", wait_seconds: 0 };

    const refused = await invoke(poll, aJsonEvent(body, { path: "/v1/workflows/workers/poll", caller: stranger }));
    expect(refused.statusCode).toBe(403);
    expect(refused.json.detail).toMatch(/hardened/);
    expect((await taskStore.get(owner.workspace, task.taskId))!.status).toBe("PENDING");

    const allowed = await invoke(poll, aJsonEvent(body, { path: "/v1/workflows/workers/poll", caller: owner }));
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json.task.task_id).toBe(task.taskId);
  });
});

describe("POST /v1/workflows/tasks/{task_id}/heartbeat of a hardened deployment", () => {
  it("answers 403 to another principal's heartbeat and complete (POST /v1/workflows/tasks/{task_id}/complete); the task stays open", async () => {
    const { task } = await aClaimedTask(dynamo, owner);
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: owner.workspace, name: "pool" }));
    await harden([owner.keyId]);

    expect((await invoke(heartbeat, aTaskCall(stranger, task.taskId, "heartbeat"))).statusCode).toBe(403);
    expect((await invoke(complete, aTaskCall(stranger, task.taskId, "complete", { result: { ok: true } }))).statusCode).toBe(403);
    expect(machines.completeTask).not.toHaveBeenCalled();
    expect((await taskStore.get(owner.workspace, task.taskId))!.status).toBe("CLAIMED");
    expect((await invoke(heartbeat, aTaskCall(owner, task.taskId, "heartbeat"))).statusCode).toBe(200);
  });
});

describe("POST /v1/workflows/register with an on-behalf-of workflow", () => {
  const definition = (onBehalf: boolean) => ({
    name: "summarize",
    definition: { input_schema: { type: "object" }, on_behalf_of: onBehalf },
    program: exampleProgram(),
    activities: EXAMPLE_ACTIVITIES,
  });
  const registering = (onBehalf: boolean) => aJsonEvent({ deployment_name: "pool", worker_name: "w1", definitions: [definition(onBehalf)] }, { path: "/v1/workflows/register", caller: owner });

  it("refuses it into a deployment opened on purpose (422 WF_1104 at definition.on_behalf_of), writing nothing else", async () => {
    const tables = serveTables(dynamo, {}, { writes: true });
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: owner.workspace, name: "pool", principals: [], openedAt: new Date().toISOString() }));

    const refused = await invoke(register, registering(true));

    expect(refused.statusCode).toBe(422);
    expect(refused.json).toMatchObject({ code: "WF_1104", detail: [{ loc: ["body", "definitions", 0, "definition", "on_behalf_of"] }] });
    expect(tables.items("workflows").map((i) => String(i.sk))).toEqual(["DEP#pool"]);
    expect((await invoke(register, registering(false))).statusCode).toBe(200);
  });

  it("registers it into a deployment the register makes, which is hardened with the registering key (decision 0042)", async () => {
    serveTables(dynamo, {}, { writes: true });

    const response = await invoke(register, registering(true));

    expect(response.statusCode).toBe(200);
    expect(await workflowRegistry.getDeployment(owner.workspace, "pool")).toMatchObject({ principals: [owner.keyId] });
  });

  it("registers it into a hardened deployment from one of its principals", async () => {
    serveTables(dynamo, {}, { writes: true });
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: owner.workspace, name: "pool" }));
    await harden([owner.keyId]);

    const response = await invoke(register, registering(true));

    expect(response.statusCode).toBe(200);
    expect(response.json.workflow_registration_ids).toHaveLength(1);
  });
});
