import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/engine/workflow-dispatch.js";
import type { InboxMessage } from "../../../shared/domain/workflows/inbox.js";
import type { DispatchEvent } from "../../../shared/domain/workflows/program/index.js";
import type { RunRecord } from "../../../shared/domain/workflows/records.js";
import { inboxStore } from "../../../shared/store/workflows/inbox.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aContext } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aRegistration, aRun, aWorkflow } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ completeTask: vi.fn(), failTask: vi.fn(), describeRun: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
let run: RunRecord;

beforeEach(async () => {
  serveTables(dynamo, {}, { writes: true });
  for (const fn of [machines.completeTask, machines.failTask]) fn.mockReset().mockResolvedValue(true);
  const workflow = aWorkflow();
  const registration = aRegistration(workflow);
  await workflowRegistry.ensureWorkflow(workflow);
  await workflowRegistry.ensureRegistration(registration);
  run = aRun({ workspace: workflow.workspace, workflowId: workflow.id, registrationId: registration.id });
  await runStore.start(run, null);
});

const dispatch = (overrides: Partial<DispatchEvent>) =>
  handler({ token: `token-${randomUUID()}`, execution: run.executionArn, state: "Wait", resource: "platform:await_signal", input: { name: "go" }, checkpoint: {}, ...overrides }, aContext());

const message = (seq: number, overrides: Partial<Omit<InboxMessage, "seq">> = {}) =>
  inboxStore.append({ workspace: run.workspace, executionId: run.executionId, kind: "signal", id: randomUUID(), name: "go", input: { n: seq }, status: "PENDING", receivedAtMs: Date.now(), runId: run.runId, ...overrides });
const statuses = async () => (await inboxStore.messages(run.workspace, run.executionId)).map((m) => `${m.seq}:${m.name}:${m.status}`);

describe("platform:await_signal", () => {
  it("completes at once with the oldest pending signal of its name, and records the state as a reset point", async () => {
    await message(1, { name: "other" });
    await message(2);
    await message(3);

    await dispatch({ token: "t-1" });

    expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith("t-1", { n: 2 });
    expect(await statuses()).toEqual(["1:other:PENDING", "2:go:DELIVERED", "3:go:PENDING"]);
    expect(await inboxStore.waiters(run.workspace, run.executionId)).toEqual([]);
    expect((await inboxStore.steps(run.workspace, run.runId)).map((s) => s.state)).toEqual(["Wait"]);
  });

  it("waits with its token when nothing is pending; the next signal is handed to it", async () => {
    await dispatch({ token: "t-2" });

    expect(machines.completeTask).not.toHaveBeenCalled();
    expect(await inboxStore.waiters(run.workspace, run.executionId)).toEqual([expect.objectContaining({ kind: "signal", name: "go", token: "t-2", runId: run.runId })]);
  });

  it("puts a signal back when the waiting token is no longer open (its Task timed out) and drops that waiter", async () => {
    await dispatch({ token: "stale" });
    machines.completeTask.mockResolvedValueOnce(false);
    const { deliver } = await import("../../../shared/services/workflows/inbox.js");
    await message(1);

    expect(await deliver(run.workspace, run.executionId)).toEqual([]);
    expect(await statuses()).toEqual(["1:go:PENDING"]);
    expect(await inboxStore.waiters(run.workspace, run.executionId)).toEqual([]);
  });

  it("fails the Task with Workflow.InvalidInput without a name", async () => {
    await dispatch({ token: "t-3", input: {} });

    expect(machines.failTask).toHaveBeenCalledWith("t-3", "Workflow.InvalidInput", expect.stringContaining("name"));
  });
});

describe("platform:await_update and platform:complete_update", () => {
  it("hands the next update as {update_id, name, input}; complete_update records its result once", async () => {
    const update = await message(1, { kind: "update", name: "double", input: { n: 2 } });

    await dispatch({ token: "u-1", resource: "platform:await_update", input: { name: "*" } });
    await dispatch({ token: "c-1", state: "Answer", resource: "platform:complete_update", input: { update_id: update.id, result: { doubled: 4 } } });
    await dispatch({ token: "c-2", state: "Answer", resource: "platform:complete_update", input: { update_id: update.id, result: { doubled: 5 } } });

    expect(machines.completeTask).toHaveBeenCalledWith("u-1", { update_id: update.id, name: "double", input: { n: 2 } });
    expect(machines.completeTask).toHaveBeenCalledWith("c-1", { update_id: update.id, result: { doubled: 4 } });
    expect(await inboxStore.get(run.workspace, run.executionId, 1)).toMatchObject({ status: "COMPLETED", result: { doubled: 4 }, error: null });
    expect(machines.failTask).toHaveBeenCalledWith("c-2", "Workflow.InvalidInput", expect.stringContaining("already completed"));
  });

  it("fails await_update without a name (a whole state input must not become a filter by accident)", async () => {
    await dispatch({ token: "u-0", resource: "platform:await_update", input: { request: "x" } });

    expect(machines.failTask).toHaveBeenCalledWith("u-0", "Workflow.InvalidInput", expect.stringContaining("`*` for any"));
  });

  it("records an error answer, and refuses an update this run did not take", async () => {
    const update = await message(1, { kind: "update", name: "double" });
    await dispatch({ token: "u-2", resource: "platform:await_update", input: { name: "double" } });

    await dispatch({ token: "c-3", resource: "platform:complete_update", input: { update_id: update.id, error: { message: "no", type: "Refused" } } });
    await dispatch({ token: "c-4", resource: "platform:complete_update", input: { update_id: randomUUID(), result: 1 } });

    expect(await inboxStore.get(run.workspace, run.executionId, 1)).toMatchObject({ status: "COMPLETED", error: { message: "no", type: "Refused" } });
    expect(machines.failTask).toHaveBeenCalledWith("c-4", "Workflow.InvalidInput", expect.stringContaining("took no update"));
  });
});
