import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/engine/workflow-reconcile.js";
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
freezeDate("2026-02-01T00:00:00.000Z");

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
  machines.describeRun.mockReset();
  timers.disarmTimer.mockReset().mockResolvedValue(undefined);
});

describe("workflow reconciler", () => {
  it("closes open runs older than ten minutes whose execution is over, as their status change would have", async () => {
    const succeeded = await seedRun(caller.workspace, { startTime: "2026-01-31T23:00:00.000Z" });
    const running = await seedRun(caller.workspace, { startTime: "2026-01-31T23:00:00.000Z" });
    const young = await seedRun(caller.workspace, { startTime: "2026-01-31T23:55:00.000Z" });
    const lost = await seedRun(caller.workspace, { startTime: "2026-01-31T22:00:00.000Z" });
    machines.describeRun.mockImplementation(async (arn: string) => {
      if (arn === succeeded.executionArn) return { status: "SUCCEEDED", output: '"done"', stopDate: new Date("2026-01-31T23:01:00.000Z") };
      if (arn === running.executionArn) return { status: "RUNNING" };
      return undefined;
    });

    expect(await handler({}, aContext())).toEqual({ checked: 3, closed: 2 });

    expect(await runStore.get(caller.workspace, succeeded.runId)).toMatchObject({ status: "COMPLETED", result: "done", endTime: "2026-01-31T23:01:00.000Z" });
    expect((await runStore.get(caller.workspace, running.runId))!.status).toBe("RUNNING");
    expect((await runStore.get(caller.workspace, young.runId))!.status).toBe("RUNNING");
    expect(await runStore.get(caller.workspace, lost.runId)).toMatchObject({ status: "FAILED", failure: { message: expect.stringContaining("no longer knows") } });
    expect(machines.describeRun).not.toHaveBeenCalledWith(young.executionArn);
  });

  it("does not see closed runs: a run leaves the open index when it closes", async () => {
    const run = await seedRun(caller.workspace, { startTime: "2026-01-31T20:00:00.000Z" });
    await runStore.transition(caller.workspace, run.runId, "COMPLETED", { endTime: "2026-01-31T20:00:01.000Z" });
    await seedRun(caller.workspace, { startTime: "2026-01-31T20:00:00.000Z", status: "FAILED" });

    expect(await handler({}, aContext())).toEqual({ checked: 0, closed: 0 });
  });
});
