import { ConflictException, CreateScheduleCommand, DeleteScheduleCommand, ResourceNotFoundException, UpdateScheduleCommand } from "@aws-sdk/client-scheduler";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as fireHandler } from "../../../functions/engine/workflow-schedule-fire.js";
import { handler as sweepHandler } from "../../../functions/engine/workflow-schedule-sweep.js";
import { handler as create } from "../../../functions/schedules/create.js";
import { handler as remove } from "../../../functions/schedules/delete.js";
import { handler as get } from "../../../functions/schedules/get.js";
import { handler as list } from "../../../functions/schedules/list.js";
import { handler as pause } from "../../../functions/schedules/pause.js";
import { handler as resume } from "../../../functions/schedules/resume.js";
import { handler as trigger } from "../../../functions/schedules/trigger.js";
import { handler as update } from "../../../functions/schedules/update.js";
import { fireTimerName, scheduledRunClosed } from "../../../shared/services/workflows/schedule-timers.js";
import { create as createSchedule } from "../../../shared/services/workflows/schedules.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { scheduleStore } from "../../../shared/store/workflows/schedules.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aContext, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { mockSchedulesPort, SCHEDULE_ENV, startedExecutionArn } from "../../support/schedule-mocks.js";
import { aDefinition, seedRegistration, seedRun } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ startRun: vi.fn(), stopRun: vi.fn(), describeRun: vi.fn(), completeTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const scheduler = mockSchedulesPort();
const caller = aCaller();
const ws = caller.workspace;
freezeDate("2029-12-31T23:00:00.000Z");

const ENV = SCHEDULE_ENV;

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
  machines.startRun.mockReset().mockImplementation(startedExecutionArn);
  machines.stopRun.mockReset().mockResolvedValue(undefined);
});

const path = (id?: string, verb?: string) => `/v1/workflows/schedules${id ? `/${id}` : ""}${verb ? `/${verb}` : ""}`;
const params = (id: string) => ({ schedule_id: id });
const aCreate = (body: Record<string, unknown>, who = caller) => aJsonEvent(body, { path: path(), caller: who });
const hourly = (over: Record<string, unknown> = {}, schedule: Record<string, unknown> = {}) => ({
  workflow_identifier: "greeter",
  schedule: { input: { name: "Ada" }, intervals: [{ every: "PT1H" }], start_at: "2030-01-01T00:00:00Z", ...schedule },
  ...over,
});
const seedGreeter = () => seedRegistration(ws, { workflow: { name: "greeter" }, registration: { definition: aDefinition({ input_schema: { type: "object", properties: { name: { type: "string" } } } }) } });

describe("POST /v1/workflows/schedules", () => {
  it("stores the schedule and arms one at() schedule for its first fire in the schedules' group, through their role", async () => {
    await seedGreeter();

    const response = await invoke(create, aCreate(hourly({ schedule_id: "s1" })));

    expect(response.statusCode).toBe(201);
    expect(response.json).toEqual({ schedule_id: "s1" });
    const calls = scheduler.commandCalls(CreateScheduleCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toMatchObject({
      Name: fireTimerName(ws, "s1", "2030-01-01T00:00:00.000Z"),
      GroupName: "g-schedules",
      ScheduleExpression: "at(2030-01-01T00:00:00)",
      ScheduleExpressionTimezone: "UTC",
      ActionAfterCompletion: "DELETE",
      Target: { Arn: ENV.SCHEDULE_TARGET_ARN, RoleArn: ENV.SCHEDULE_ROLE_ARN, Input: JSON.stringify({ kind: "schedule-fire", workspace: ws, scheduleId: "s1" }) },
    });
    expect(await scheduleStore.get(ws, "s1")).toMatchObject({ workflowName: "greeter", userId: caller.principal, nextAt: "2030-01-01T00:00:00.000Z", remaining: null });
  });

  it("refuses an input the workflow's input_schema refuses (422 WF_1200 at body.schedule.input), a taken id (409), writing nothing", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "taken" })));
    scheduler.resetHistory();

    const badInput = await invoke(create, aCreate(hourly({ schedule_id: "x" }, { input: { name: 42 } })));
    const taken = await invoke(create, aCreate(hourly({ schedule_id: "taken" })));
    const nameless = await invoke(create, aCreate({ schedule: { input: {}, intervals: [{ every: "PT1H" }] } }));

    expect(badInput.statusCode).toBe(422);
    expect(badInput.json.code).toBe("WF_1200");
    expect(badInput.json.detail[0].loc.slice(0, 3)).toEqual(["body", "schedule", "input"]);
    expect(taken.statusCode).toBe(409);
    expect(nameless.statusCode).toBe(422);
    expect(nameless.json.detail[0].loc).toEqual(["body", "workflow_identifier"]);
    expect(await scheduleStore.get(ws, "x")).toBeUndefined();
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(0);
  });

  it("refuses a schedule of an archived workflow with 409 WORKFLOW_ARCHIVED, arming nothing", async () => {
    await seedRegistration(ws, { workflow: { name: "greeter", archived: true } });

    const response = await invoke(create, aCreate(hourly({ schedule_id: "frozen" })));

    expect(response.statusCode).toBe(409);
    expect(response.json.code).toBe("WORKFLOW_ARCHIVED");
    expect(await scheduleStore.get(ws, "frozen")).toBeUndefined();
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(0);
  });

  it("moves an armed fire when Scheduler says it exists (create, then update)", async () => {
    await seedGreeter();
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException({ message: "exists", Message: "exists", $metadata: {} }));

    const response = await invoke(create, aCreate(hourly({ schedule_id: "again" })));

    expect(response.statusCode).toBe(201);
    expect(scheduler.commandCalls(UpdateScheduleCommand)).toHaveLength(1);
  });
});

describe("GET /v1/workflows/schedules", () => {
  it("lists the workspace's schedules by id with a next_page_token", async () => {
    await seedGreeter();
    for (const id of ["a", "b", "c"]) await invoke(create, aCreate(hourly({ schedule_id: id })));

    const first = await invoke(list, anEvent({ path: path(), query: { page_size: "2" }, caller }));
    const second = await invoke(list, anEvent({ path: path(), query: { page_size: "2", next_page_token: first.json.next_page_token }, caller }));

    expect(first.statusCode).toBe(200);
    expect(first.json.schedules.map((s: { schedule_id: string }) => s.schedule_id)).toEqual(["a", "b"]);
    expect(second.json).toMatchObject({ schedules: [{ schedule_id: "c" }], next_page_token: null });
  });
});

describe("GET /v1/workflows/schedules/{schedule_id}", () => {
  it("answers the detail with future_executions from the evaluator, and 404 WF_1201 for an unknown id", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "g" }, { max_executions: 3 })));

    const found = await invoke(get, anEvent({ path: path("g"), pathParameters: params("g"), caller }));
    const missing = await invoke(get, anEvent({ path: path("nope"), pathParameters: params("nope"), caller }));

    expect(found.json).toMatchObject({ schedule_id: "g", remaining_executions: 3, paused: false, workflow_name: "greeter" });
    expect(found.json.future_executions).toEqual([
      { scheduled_at: "2030-01-01T00:00:00.000Z" },
      { scheduled_at: "2030-01-01T01:00:00.000Z" },
      { scheduled_at: "2030-01-01T02:00:00.000Z" },
    ]);
    expect(missing.statusCode).toBe(404);
    expect(missing.json.code).toBe("WF_1201");
  });

  it("fills in time_zone_name UTC when none was given, and answers the one given", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "utc" })));
    await invoke(create, aCreate(hourly({ schedule_id: "paris" }, { time_zone_name: "Europe/Paris" })));
    await invoke(create, aCreate(hourly({ schedule_id: "null-zone" }, { time_zone_name: null })));

    const zone = async (id: string) => (await invoke(get, anEvent({ path: path(id), pathParameters: params(id), caller }))).json.time_zone_name;

    expect(await zone("utc")).toBe("UTC");
    expect(await zone("paris")).toBe("Europe/Paris");
    expect(await zone("null-zone")).toBe("UTC");
    expect((await invoke(list, anEvent({ path: path(), caller }))).json.schedules.map((s: { time_zone_name: string }) => s.time_zone_name)).toEqual(["UTC", "Europe/Paris", "UTC"]);
  });
});

describe("PATCH /v1/workflows/schedules/{schedule_id}", () => {
  it("changes the supplied fields, moves the armed fire (the old one deleted, the new one created)", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "p" })));
    scheduler.resetHistory();

    const response = await invoke(update, aJsonEvent({ schedule: { start_at: "2030-02-01T00:00:00Z" } }, { method: "PATCH", path: path("p"), pathParameters: params("p"), caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ schedule_id: "p" });
    expect(scheduler.commandCalls(DeleteScheduleCommand)[0]!.args[0].input.Name).toBe(fireTimerName(ws, "p", "2030-01-01T00:00:00.000Z"));
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input.ScheduleExpression).toBe("at(2030-02-01T00:00:00)");
    expect(await scheduleStore.get(ws, "p")).toMatchObject({ input: { name: "Ada" }, nextAt: "2030-02-01T00:00:00.000Z" });
  });
});

describe("DELETE /v1/workflows/schedules/{schedule_id}", () => {
  it("deletes the record and its armed fire (204); an already fired one is not an error", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "d" })));
    scheduler.on(DeleteScheduleCommand).rejects(new ResourceNotFoundException({ message: "gone", Message: "gone", $metadata: {} }));

    const response = await invoke(remove, anEvent({ method: "DELETE", path: path("d"), pathParameters: params("d"), caller }));
    const again = await invoke(remove, anEvent({ method: "DELETE", path: path("d"), pathParameters: params("d"), caller }));

    expect(response.statusCode).toBe(204);
    expect(await scheduleStore.get(ws, "d")).toBeUndefined();
    expect(scheduler.commandCalls(DeleteScheduleCommand)[0]!.args[0].input).toMatchObject({ GroupName: "g-schedules", Name: fireTimerName(ws, "d", "2030-01-01T00:00:00.000Z") });
    expect(again.statusCode).toBe(404);
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/pause", () => {
  it("pauses with the note and disarms the armed fire (204), with or without a body", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "z" })));
    scheduler.resetHistory();

    const response = await invoke(pause, aJsonEvent({ note: "holiday" }, { path: path("z", "pause"), pathParameters: params("z"), caller }));
    const bare = await invoke(pause, anEvent({ method: "POST", path: path("z", "pause"), pathParameters: params("z"), caller }));

    expect(response.statusCode).toBe(204);
    expect(bare.statusCode).toBe(204);
    expect(scheduler.commandCalls(DeleteScheduleCommand)).toHaveLength(2);
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(0);
    expect(await scheduleStore.get(ws, "z")).toMatchObject({ paused: true, note: null });
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/resume", () => {
  it("resumes from the next time after now and arms it (204)", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "r" })));
    await invoke(pause, anEvent({ method: "POST", path: path("r", "pause"), pathParameters: params("r"), caller }));
    scheduler.resetHistory();

    const response = await invoke(resume, aJsonEvent({ note: "back" }, { path: path("r", "resume"), pathParameters: params("r"), caller }));

    expect(response.statusCode).toBe(204);
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(1);
    expect(await scheduleStore.get(ws, "r")).toMatchObject({ paused: false, note: "back", nextAt: "2030-01-01T00:00:00.000Z" });
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/trigger", () => {
  it("starts an execution now with schedule_id (204), not counted; under skip, not while one runs", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "t" }, { max_executions: 5 })));

    const response = await invoke(trigger, anEvent({ method: "POST", path: path("t", "trigger"), pathParameters: params("t"), caller }));
    const skipped = await invoke(trigger, aJsonEvent({ overlap: 1 }, { path: path("t", "trigger"), pathParameters: params("t"), caller }));
    const badOverlap = await invoke(trigger, aJsonEvent({ overlap: 7 }, { path: path("t", "trigger"), pathParameters: params("t"), caller }));

    expect(response.statusCode).toBe(204);
    expect(skipped.statusCode).toBe(204);
    expect(badOverlap.statusCode).toBe(422);
    expect(machines.startRun).toHaveBeenCalledOnce();
    const stored = await scheduleStore.get(ws, "t");
    expect(stored!.remaining).toBe(5);
    expect(stored!.recent).toEqual([{ scheduled_at: "2029-12-31T23:00:00.000Z", started_at: "2029-12-31T23:00:00.000Z", execution_id: expect.stringMatching(/^t-20291231T230000Z-[0-9a-f]{8}$/) }]);
  });

  it("fires a paused schedule once now: the execution starts, the schedule stays paused and unarmed, nothing counted", async () => {
    await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "tp" }, { max_executions: 5 })));
    await invoke(pause, anEvent({ method: "POST", path: path("tp", "pause"), pathParameters: params("tp"), caller }));
    scheduler.resetHistory();

    const response = await invoke(trigger, anEvent({ method: "POST", path: path("tp", "trigger"), pathParameters: params("tp"), caller }));

    expect(response.statusCode).toBe(204);
    expect(machines.startRun).toHaveBeenCalledOnce();
    expect(await scheduleStore.get(ws, "tp")).toMatchObject({ paused: true, remaining: 5, recent: [{ execution_id: expect.stringMatching(/^tp-20291231T230000Z-/) }] });
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(0);
  });

  it("refuses a trigger of an archived workflow's schedule with 409 WORKFLOW_ARCHIVED, starting nothing", async () => {
    const { workflow } = await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "ta" })));
    await workflowRegistry.updateWorkflow(ws, workflow.id, { archived: true });

    const response = await invoke(trigger, anEvent({ method: "POST", path: path("ta", "trigger"), pathParameters: params("ta"), caller }));

    expect(response.statusCode).toBe(409);
    expect(response.json.code).toBe("WORKFLOW_ARCHIVED");
    expect(machines.startRun).not.toHaveBeenCalled();
    expect((await scheduleStore.get(ws, "ta"))!.recent).toEqual([]);
  });

  it("terminates the running one under terminate-other", async () => {
    const seeded = await seedGreeter();
    await invoke(create, aCreate(hourly({ schedule_id: "tt" })));
    const running = await seedRun(ws, { scheduleId: "tt", executionId: "tt-old" }, seeded);
    await scheduleStore.addRecent(ws, "tt", { scheduled_at: running.startTime, started_at: running.startTime, execution_id: "tt-old" });

    const response = await invoke(trigger, aJsonEvent({ overlap: 5 }, { path: path("tt", "trigger"), pathParameters: params("tt"), caller }));

    expect(response.statusCode).toBe(204);
    expect(machines.stopRun).toHaveBeenCalledWith(running.executionArn, "Workflow.Terminated", expect.any(String));
    expect(machines.startRun).toHaveBeenCalledOnce();
  });
});

/** The engine's schedule functions (functions/engine/workflow-schedule-fire.ts, -sweep.ts), on the same mocks. */
const T0 = Date.parse("2030-01-01T00:00:00Z");

async function aFiringSchedule(id: string, schedule: Record<string, unknown> = {}) {
  await seedGreeter();
  vi.setSystemTime(T0 - 3_600_000);
  await createSchedule(caller, { workflow_identifier: "greeter", schedule_id: id, schedule: { input: {}, intervals: [{ every: "PT1H" }], start_at: new Date(T0).toISOString(), ...schedule } } as never);
  scheduler.resetHistory();
}

describe("workflow schedule fire handler", () => {
  it("at the armed time: starts the execution, records it, arms the next fire", async () => {
    await aFiringSchedule("f");
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
    await aFiringSchedule("p");
    await scheduleStore.change({ ...(await scheduleStore.get(ws, "p"))!, paused: true }, { paused: true });
    vi.setSystemTime(T0 + 2_000);

    expect(await fireHandler({ kind: "schedule-fire", workspace: ws, scheduleId: "p" }, aContext())).toEqual({ started: 0, buffered: 0, skipped: 0 });
    expect(await fireHandler({ kind: "schedule-fire", workspace: ws, scheduleId: "gone" }, aContext())).toEqual({ started: 0, buffered: 0, skipped: 0 });
    expect(machines.startRun).not.toHaveBeenCalled();
  });

  it("an archived workflow's fire starts nothing and is not counted; the schedule goes on to its next fire", async () => {
    await aFiringSchedule("fa", { max_executions: 3 });
    const workflow = await workflowRegistry.findWorkflow(ws, "greeter");
    await workflowRegistry.updateWorkflow(ws, workflow!.id, { archived: true });
    vi.setSystemTime(T0 + 2_000);

    const result = await fireHandler({ kind: "schedule-fire", workspace: ws, scheduleId: "fa" }, aContext());

    expect(result).toEqual({ started: 0, buffered: 0, skipped: 1 });
    expect(machines.startRun).not.toHaveBeenCalled();
    expect(await scheduleStore.get(ws, "fa")).toMatchObject({ remaining: 3, nextAt: "2030-01-01T01:00:00.000Z", recent: [] });
  });

  it("pause_on_failure: a FAILED run of the schedule pauses it", async () => {
    await aFiringSchedule("pf", { policy: { pause_on_failure: true } });

    await scheduledRunClosed({ workspace: ws, scheduleId: "pf", status: "FAILED", executionId: "pf-1" });

    expect(await scheduleStore.get(ws, "pf")).toMatchObject({ paused: true, note: expect.stringContaining("pf-1") });
  });
});

describe("workflow schedule sweeper", () => {
  it("re-arms, at once, a schedule whose armed fire is minutes past", async () => {
    await aFiringSchedule("lost");
    vi.setSystemTime(T0 + 10 * 60_000);

    const result = await sweepHandler({}, aContext());

    expect(result).toEqual({ rearmed: 1 });
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input).toMatchObject({ Name: fireTimerName(ws, "lost", "2030-01-01T00:10:00.000Z"), GroupName: "g-schedules" });
  });
});
