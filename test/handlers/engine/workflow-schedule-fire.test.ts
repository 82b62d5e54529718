import { CreateScheduleCommand } from "@aws-sdk/client-scheduler";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as fireHandler } from "../../../functions/engine/workflow-schedule-fire.js";
import { handler as sweepHandler } from "../../../functions/engine/workflow-schedule-sweep.js";
import { create } from "../../../shared/services/workflows/schedules.js";
import { fireTimerName, scheduledRunClosed } from "../../../shared/services/workflows/schedule-timers.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { scheduleStore } from "../../../shared/store/workflows/schedules.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aContext } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { mockSchedulesPort, startedExecutionArn } from "../../support/schedule-mocks.js";
import { seedRegistration } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ startRun: vi.fn(), stopRun: vi.fn(), describeRun: vi.fn(), completeTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const scheduler = mockSchedulesPort();
const caller = aCaller();
const ws = caller.workspace;
const T0 = Date.parse("2030-01-01T00:00:00Z");

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
  machines.startRun.mockReset().mockImplementation(startedExecutionArn);
  vi.useFakeTimers({ toFake: ["Date"] });
});

async function aSchedule(id: string, schedule: Record<string, unknown> = {}) {
  await seedRegistration(ws, { workflow: { name: "greeter" } });
  vi.setSystemTime(T0 - 3_600_000);
  await create(caller, { workflow_identifier: "greeter", schedule_id: id, schedule: { input: {}, intervals: [{ every: "PT1H" }], start_at: new Date(T0).toISOString(), ...schedule } } as never);
  scheduler.resetHistory();
}

describe("workflow schedule fire handler", () => {
  it("at the armed time: starts the execution, records it, arms the next fire", async () => {
    await aSchedule("f");
    vi.setSystemTime(T0 + 2_000);

    const result = await fireHandler({ kind: "schedule-fire", workspace: ws, scheduleId: "f" }, aContext());

    expect(result).toEqual({ started: 1, buffered: 0, skipped: 0 });
    expect(machines.startRun).toHaveBeenCalledOnce();
    const stored = await scheduleStore.get(ws, "f");
    expect(stored).toMatchObject({ nextAt: "2030-01-01T01:00:00.000Z", recent: [{ execution_id: "f-20300101T000000Z", scheduled_at: "2030-01-01T00:00:00.000Z" }] });
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input).toMatchObject({ Name: fireTimerName(ws, "f", "2030-01-01T01:00:00.000Z"), ScheduleExpression: "at(2030-01-01T01:00:00)" });
    const run = await runStore.getExecution(ws, "f-20300101T000000Z");
    expect(run).toMatchObject({ status: "RUNNING" });
  });

  it("a delivery for a schedule that is gone, or paused, does nothing", async () => {
    await aSchedule("p");
    await scheduleStore.change({ ...(await scheduleStore.get(ws, "p"))!, paused: true }, { paused: true });
    vi.setSystemTime(T0 + 2_000);

    expect(await fireHandler({ kind: "schedule-fire", workspace: ws, scheduleId: "p" }, aContext())).toEqual({ started: 0, buffered: 0, skipped: 0 });
    expect(await fireHandler({ kind: "schedule-fire", workspace: ws, scheduleId: "gone" }, aContext())).toEqual({ started: 0, buffered: 0, skipped: 0 });
    expect(machines.startRun).not.toHaveBeenCalled();
  });

  it("pause_on_failure: a FAILED run of the schedule pauses it", async () => {
    await aSchedule("pf", { policy: { pause_on_failure: true } });

    await scheduledRunClosed({ workspace: ws, scheduleId: "pf", status: "FAILED", executionId: "pf-1" });

    expect(await scheduleStore.get(ws, "pf")).toMatchObject({ paused: true, note: expect.stringContaining("pf-1") });
  });
});

describe("workflow schedule sweeper", () => {
  it("re-arms, at once, a schedule whose armed fire is minutes past", async () => {
    await aSchedule("lost");
    vi.setSystemTime(T0 + 10 * 60_000);

    const result = await sweepHandler({}, aContext());

    expect(result).toEqual({ rearmed: 1 });
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input).toMatchObject({ Name: fireTimerName(ws, "lost", "2030-01-01T00:10:00.000Z"), GroupName: "g-schedules" });
  });
});
