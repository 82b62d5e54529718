import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/engine/workflow-timer.js";
import { eventStore } from "../../../shared/store/workflows/events.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aContext } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { seedRun } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ startRun: vi.fn(), stopRun: vi.fn(), describeRun: vi.fn(), completeTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);
const timers = vi.hoisted(() => ({ armTimer: vi.fn(), disarmTimer: vi.fn() }));
vi.mock("../../../shared/engine/timers.js", () => timers);

const dynamo = mockDynamo();
const caller = aCaller();
const NOW = freezeDate("2026-02-01T00:00:00.000Z");

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
  machines.stopRun.mockReset().mockResolvedValue(undefined);
  machines.completeTask.mockReset().mockResolvedValue(true);
  timers.disarmTimer.mockReset().mockResolvedValue(undefined);
});

describe("workflow timer handler", () => {
  it("times a running execution out: intent, stop, TIMED_OUT, no event", async () => {
    const run = await seedRun(caller.workspace);

    await handler({ kind: "execution-timeout", workspace: caller.workspace, runId: run.runId }, aContext());

    expect(machines.stopRun).toHaveBeenCalledExactlyOnceWith(run.executionArn, "Workflow.TimedOut", expect.any(String));
    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "TIMED_OUT", intent: "timeout", endTime: NOW });
    expect(await eventStore.listFrom(caller.workspace, run.executionId, 0, 10)).toEqual([]);
  });

  it("ends a cancel's grace period: stop, CANCELED, its event", async () => {
    const run = await seedRun(caller.workspace);
    await runStore.setIntent(caller.workspace, run.runId, { intent: "cancel", cancelRequested: true });

    await handler({ kind: "cancel-grace", workspace: caller.workspace, runId: run.runId }, aContext());

    expect(machines.stopRun).toHaveBeenCalledOnce();
    expect((await runStore.get(caller.workspace, run.runId))!.status).toBe("CANCELED");
    expect((await eventStore.listFrom(caller.workspace, run.executionId, 0, 10)).map((e) => e.event.event_type)).toEqual(["WORKFLOW_EXECUTION_CANCELED"]);
  });

  it("does nothing when the run closed before its timer fired", async () => {
    const run = await seedRun(caller.workspace, { status: "COMPLETED" });

    await handler({ kind: "execution-timeout", workspace: caller.workspace, runId: run.runId }, aContext());
    await handler({ kind: "cancel-grace", workspace: caller.workspace, runId: run.runId }, aContext());

    expect(machines.stopRun).not.toHaveBeenCalled();
    expect((await runStore.get(caller.workspace, run.runId))!.status).toBe("COMPLETED");
  });

  it("wakes a sleeping task by completing its token", async () => {
    await handler({ kind: "task-wake", token: "tok", output: { woke: true } }, aContext());

    expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith("tok", { woke: true });
  });
});
