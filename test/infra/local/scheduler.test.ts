import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConflictException,
  CreateScheduleCommand,
  CreateScheduleGroupCommand,
  DeleteScheduleCommand,
  DeleteScheduleGroupCommand,
  GetScheduleCommand,
  GetScheduleGroupCommand,
  ListScheduleGroupsCommand,
  ListSchedulesCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
  type CreateScheduleCommandInput,
} from "@aws-sdk/client-scheduler";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { LOCAL_SCHEDULES, LOCAL_TIMERS, localFunctionArn, startScheduler, type LocalScheduler, type LocalSchedulerOptions } from "../../../infra/local/scheduler.js";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { timerSchedule } from "../../../shared/engine/timers.js";
import { callsOf, type StubTimer } from "../../support/timer-tasks/calls.js";

const STUB = localFunctionArn("stub-timer");
const GROUP = LOCAL_TIMERS.group;
const START = Date.parse("2030-01-01T00:00:00Z");
const taskModule = (handler: string) => join(ROOT_DIR, "test/support/timer-tasks", `${handler}.ts`);

const temporary = mkdtempSync(join(tmpdir(), "local-scheduler-"));
const started: LocalScheduler[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  rmSync(temporary, { recursive: true, force: true });
});

/** A clock the test moves: the stand-in fires only on tick(), or at once for what is due already. */
function aClock(start = START) {
  const clock = { t: start, now: () => clock.t, advance: (ms: number) => void (clock.t += ms) };
  return clock;
}

async function standIn(options: LocalSchedulerOptions = {}) {
  const clock = aClock();
  const log: string[] = [];
  const running = await startScheduler({ functions: { [STUB]: "record" }, taskModule, now: clock.now, log: (m) => void log.push(m), ...options });
  started.push(running);
  const client = new SchedulerClient({ endpoint: running.endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  return { running, client, clock, log };
}

const isoSeconds = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** A one-time timer on the stub handler, in the timers' group, due `inMs` after START. */
function aTimer(timer: StubTimer, inMs: number, fields: Partial<CreateScheduleCommandInput> = {}): CreateScheduleCommandInput {
  return {
    Name: `t-${timer.id}`,
    GroupName: GROUP,
    ScheduleExpression: `at(${isoSeconds(START + inMs)})`,
    ScheduleExpressionTimezone: "UTC",
    FlexibleTimeWindow: { Mode: "OFF" },
    ActionAfterCompletion: "DELETE",
    Target: { Arn: STUB, RoleArn: LOCAL_TIMERS.roleArn, Input: JSON.stringify(timer), RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 } },
    ...fields,
  };
}

const aStub = (fields: Partial<StubTimer> = {}): StubTimer => ({ id: randomUUID(), ...fields });

async function until(condition: () => boolean, what: string, timeoutMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const gone = (client: SchedulerClient, name: string) => expect(client.send(new GetScheduleCommand({ Name: name, GroupName: GROUP }))).rejects.toBeInstanceOf(ResourceNotFoundException);

describe("the local Scheduler, through @aws-sdk/client-scheduler", () => {
  it("creates, gets, updates, lists and deletes a schedule, keeping every field it was given", async () => {
    const { client } = await standIn();
    const stub = aStub();
    const input = aTimer(stub, 3_600_000, { Description: "a timeout", State: "DISABLED", StartDate: new Date(START), EndDate: new Date(START + 7_200_000) });
    const { ScheduleArn } = await client.send(new CreateScheduleCommand(input));
    expect(ScheduleArn).toBe(`arn:aws:scheduler:us-east-1:000000000000:schedule/${GROUP}/t-${stub.id}`);

    const got = await client.send(new GetScheduleCommand({ Name: input.Name, GroupName: GROUP }));
    expect(got).toMatchObject({
      Arn: ScheduleArn,
      Name: input.Name,
      GroupName: GROUP,
      ScheduleExpression: input.ScheduleExpression,
      ScheduleExpressionTimezone: "UTC",
      Description: "a timeout",
      State: "DISABLED",
      StartDate: new Date(START),
      EndDate: new Date(START + 7_200_000),
      FlexibleTimeWindow: { Mode: "OFF" },
      ActionAfterCompletion: "DELETE",
      Target: input.Target,
      CreationDate: new Date(START),
      LastModificationDate: new Date(START),
    });

    await client.send(new UpdateScheduleCommand({ ...aTimer(stub, 60_000), Description: "moved" }));
    const updated = await client.send(new GetScheduleCommand({ Name: input.Name, GroupName: GROUP }));
    expect(updated).toMatchObject({ ScheduleExpression: `at(${isoSeconds(START + 60_000)})`, Description: "moved", State: "ENABLED" });
    expect(updated.StartDate).toBeUndefined();

    const listed = await client.send(new ListSchedulesCommand({ GroupName: GROUP, NamePrefix: input.Name }));
    expect(listed.Schedules).toEqual([
      { Arn: ScheduleArn, Name: input.Name, GroupName: GROUP, State: "ENABLED", CreationDate: new Date(START), LastModificationDate: new Date(START), Target: { Arn: STUB } },
    ]);

    await client.send(new DeleteScheduleCommand({ Name: input.Name, GroupName: GROUP }));
    await gone(client, input.Name!);
    expect((await client.send(new ListSchedulesCommand({ GroupName: GROUP }))).Schedules).toEqual([]);
  });

  it("pages ListSchedules and filters it by state", async () => {
    const { client } = await standIn();
    for (let i = 0; i < 5; i++) await client.send(new CreateScheduleCommand(aTimer(aStub(), 60_000, { Name: `p-${i}`, State: i % 2 ? "DISABLED" : "ENABLED" })));
    const first = await client.send(new ListSchedulesCommand({ NamePrefix: "p-", MaxResults: 2 }));
    const second = await client.send(new ListSchedulesCommand({ NamePrefix: "p-", MaxResults: 2, NextToken: first.NextToken }));
    const third = await client.send(new ListSchedulesCommand({ NamePrefix: "p-", MaxResults: 2, NextToken: second.NextToken }));
    expect([first, second, third].flatMap((p) => p.Schedules!.map((s) => s.Name))).toEqual(["p-0", "p-1", "p-2", "p-3", "p-4"]);
    expect(third.NextToken).toBeUndefined();
    const disabled = await client.send(new ListSchedulesCommand({ State: "DISABLED" }));
    expect(disabled.Schedules!.map((s) => s.Name)).toEqual(["p-1", "p-3"]);
  });

  it("fires an at() timer when it is due, with exactly its payload, then deletes it", async () => {
    const { running, client, clock } = await standIn();
    const stub = aStub({ nested: { attempt: 2, tags: ["a", "b"] }, unicode: "é✓" });
    await client.send(new CreateScheduleCommand(aTimer(stub, 90_000)));
    clock.advance(89_000);
    await running.tick();
    expect(callsOf(stub.id)).toEqual([]);
    clock.advance(1_000);
    await running.tick();
    expect(callsOf(stub.id)).toEqual([{ handler: "record", event: stub, functionArn: STUB }]);
    await gone(client, `t-${stub.id}`);
    clock.advance(60_000);
    await running.tick();
    expect(callsOf(stub.id)).toHaveLength(1);
  });

  it("keeps a fired schedule whose ActionAfterCompletion is NONE, and does not fire it again", async () => {
    const { running, client, clock } = await standIn();
    const stub = aStub();
    await client.send(new CreateScheduleCommand(aTimer(stub, 1_000, { ActionAfterCompletion: "NONE" })));
    clock.advance(1_000);
    await running.tick();
    clock.advance(60_000);
    await running.tick();
    expect(callsOf(stub.id)).toHaveLength(1);
    expect(await client.send(new GetScheduleCommand({ Name: `t-${stub.id}`, GroupName: GROUP }))).toMatchObject({ State: "ENABLED" });
  });

  it("does not fire a DISABLED schedule, and fires it once enabled", async () => {
    const { running, client, clock } = await standIn();
    const stub = aStub();
    await client.send(new CreateScheduleCommand(aTimer(stub, 1_000, { State: "DISABLED" })));
    clock.advance(5_000);
    await running.tick();
    expect(callsOf(stub.id)).toEqual([]);
    await client.send(new UpdateScheduleCommand(aTimer(stub, 1_000)));
    await running.tick();
    expect(callsOf(stub.id)).toHaveLength(1);
  });

  it("fires a schedule whose time is past when it is created at once, without a tick", async () => {
    const { running, client } = await standIn();
    const stub = aStub();
    await client.send(new CreateScheduleCommand(aTimer(stub, -3_600_000)));
    await until(() => callsOf(stub.id).length === 1, "the past timer to fire");
    await running.tick();
    await gone(client, `t-${stub.id}`);
  });

  it("moves a pending timer: the update replaces its time and payload", async () => {
    const { running, client, clock } = await standIn();
    const stub = aStub();
    await client.send(new CreateScheduleCommand(aTimer(stub, 10_000)));
    const moved = { ...stub, phase: "second" };
    await client.send(new UpdateScheduleCommand(aTimer(moved, 20_000)));
    clock.advance(10_000);
    await running.tick();
    expect(callsOf(stub.id)).toEqual([]);
    clock.advance(10_000);
    await running.tick();
    expect(callsOf(stub.id).map((c) => c.event)).toEqual([moved]);
  });

  it("fires on a timer of its own when the schedule comes due, without a tick", async () => {
    // A clock that runs with the real one, 100 ms before a whole second: at() has second resolution.
    const offset = Math.ceil(Date.now() / 1000) * 1000 + 10_000 - 100 - Date.now();
    const now = () => Date.now() + offset;
    const { client } = await standIn({ now, ownTimers: true });
    const stub = aStub();
    const due = Math.ceil(now() / 1000) * 1000;
    await client.send(new CreateScheduleCommand({ ...aTimer(stub, 0), ScheduleExpression: `at(${isoSeconds(due)})` }));
    expect(callsOf(stub.id)).toEqual([]);
    await until(() => callsOf(stub.id).length === 1, "the timer to fire on time");
    expect(now()).toBeGreaterThanOrEqual(due);
  });

  describe("failing targets", () => {
    it("retries a failing handler with backoff until it succeeds, then deletes the schedule", async () => {
      const { running, client, clock, log } = await standIn({ retryDelaysMs: [1_000, 5_000, 30_000] });
      const stub = aStub({ failTimes: 2 });
      await client.send(new CreateScheduleCommand(aTimer(stub, 0)));
      await running.tick();
      expect(callsOf(stub.id)).toHaveLength(1);
      clock.advance(999);
      await running.tick();
      expect(callsOf(stub.id)).toHaveLength(1);
      clock.advance(1);
      await running.tick();
      expect(callsOf(stub.id)).toHaveLength(2);
      clock.advance(5_000);
      await running.tick();
      expect(callsOf(stub.id)).toHaveLength(3);
      await gone(client, `t-${stub.id}`);
      expect(log).toEqual([expect.stringMatching(/StubFailure.*retry 1 of 3 in 1000 ms/), expect.stringMatching(/retry 2 of 3 in 5000 ms/)]);
    });

    it("drops the event once the retries are spent (no more than the target's MaximumRetryAttempts), and says so", async () => {
      const { running, client, clock, log } = await standIn({ retryDelaysMs: [1_000, 1_000, 1_000] });
      const stub = aStub({ failTimes: 99 });
      const timer = aTimer(stub, 0);
      await client.send(new CreateScheduleCommand({ ...timer, Target: { ...timer.Target!, RetryPolicy: { MaximumRetryAttempts: 1 } } }));
      for (let i = 0; i < 4; i++) {
        await running.tick();
        clock.advance(1_000);
      }
      expect(callsOf(stub.id)).toHaveLength(2);
      expect(log.at(-1)).toMatch(/retries spent, the event is dropped/);
      await gone(client, `t-${stub.id}`);
    });

    it("logs a target whose module is missing and retries it, so a module written later runs", async () => {
      const dir = mkdtempSync(join(temporary, "late-"));
      const { running, client, clock, log } = await standIn({ functions: { [STUB]: "late" }, taskModule: (handler) => join(dir, `${handler}.ts`) });
      const stub = aStub();
      await client.send(new CreateScheduleCommand(aTimer(stub, 0)));
      await running.tick();
      expect(log).toEqual([expect.stringMatching(/Runtime\.ImportModuleError: (Error: )?Cannot find module .*late\.ts.*retry 1 of 4/)]);
      writeFileSync(join(dir, "late.ts"), `export { handler } from ${JSON.stringify(taskModule("record"))};\n`);
      clock.advance(1_000);
      await running.tick();
      expect(callsOf(stub.id)).toHaveLength(1);
      await gone(client, `t-${stub.id}`);
    });

    it("logs a target ARN no local function has", async () => {
      const { running, client, log } = await standIn({ retryDelaysMs: [] });
      const timer = aTimer(aStub(), 0);
      await client.send(new CreateScheduleCommand({ ...timer, Target: { ...timer.Target!, Arn: localFunctionArn("nobody") } }));
      await running.tick();
      expect(log).toEqual([expect.stringMatching(/No local function has the ARN .*:function:nobody.*dropped/)]);
    });
  });

  describe("persistence", () => {
    it("keeps timers across a stop and start with the same state file, and fires those that came due meanwhile at once", async () => {
      const stateFile = join(temporary, `state-${randomUUID()}`, "schedules.json");
      const first = await standIn({ stateFile });
      const later = aStub();
      const meanwhile = aStub();
      await first.client.send(new CreateScheduleCommand(aTimer(later, 3_600_000)));
      await first.client.send(new CreateScheduleCommand(aTimer(meanwhile, 60_000)));
      await first.client.send(new CreateScheduleGroupCommand({ Name: "kept-group" }));
      await first.running.stop();

      const clock = aClock(START + 120_000);
      const second = await standIn({ stateFile, now: clock.now });
      await until(() => callsOf(meanwhile.id).length === 1, "the timer due while stopped to fire");
      expect(callsOf(later.id)).toEqual([]);
      expect(await second.client.send(new GetScheduleCommand({ Name: `t-${later.id}`, GroupName: GROUP }))).toMatchObject({ CreationDate: new Date(START) });
      expect(await second.client.send(new GetScheduleGroupCommand({ Name: "kept-group" }))).toMatchObject({ Name: "kept-group", State: "ACTIVE" });
      clock.advance(3_600_000);
      await second.running.tick();
      expect(callsOf(later.id).map((c) => c.event)).toEqual([later]);
      await second.running.stop();

      const third = await standIn({ stateFile });
      expect((await third.client.send(new ListSchedulesCommand({ GroupName: GROUP }))).Schedules).toEqual([]);
    });

    it("starts with an empty state when the file does not exist yet", async () => {
      const stateFile = join(temporary, `fresh-${randomUUID()}`, "schedules.json");
      const { client } = await standIn({ stateFile });
      expect((await client.send(new ListSchedulesCommand({}))).Schedules).toEqual([]);
    });
  });

  describe("errors, in the SDK's shapes", () => {
    it("answers ResourceNotFoundException for a missing schedule or group", async () => {
      const { client } = await standIn();
      await expect(client.send(new GetScheduleCommand({ Name: "missing", GroupName: GROUP }))).rejects.toBeInstanceOf(ResourceNotFoundException);
      await expect(client.send(new DeleteScheduleCommand({ Name: "missing", GroupName: GROUP }))).rejects.toBeInstanceOf(ResourceNotFoundException);
      await expect(client.send(new UpdateScheduleCommand(aTimer(aStub(), 0, { Name: "missing" })))).rejects.toBeInstanceOf(ResourceNotFoundException);
      const error = await client.send(new CreateScheduleCommand(aTimer(aStub(), 0, { GroupName: "no-such-group" }))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceNotFoundException);
      expect(error).toMatchObject({ message: "Schedule group no-such-group does not exist.", $metadata: { httpStatusCode: 404 } });
    });

    it("answers ConflictException for a name that exists in the group", async () => {
      const { client } = await standIn();
      const timer = aTimer(aStub(), 60_000);
      await client.send(new CreateScheduleCommand(timer));
      const error = await client.send(new CreateScheduleCommand(timer)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictException);
      expect(error).toMatchObject({ message: `Schedule ${timer.Name} already exists.`, $metadata: { httpStatusCode: 409 } });
      // The same name in another group is another schedule.
      await client.send(new CreateScheduleCommand({ ...timer, GroupName: "default" }));
    });

    it.each([
      ["rate()", { ScheduleExpression: "rate(5 minutes)" }, /fires only one-time at\(\) schedules/],
      ["cron()", { ScheduleExpression: "cron(0 3 * * ? *)" }, /fires only one-time at\(\) schedules/],
      ["a malformed at()", { ScheduleExpression: "at(2030-02-30T00:00:00)" }, /Invalid Schedule Expression/],
      ["another time zone", { ScheduleExpressionTimezone: "Europe/Paris" }, /UTC only/],
      ["a bad name", { Name: "a/b" }, /invalid/],
      ["a target without a role", { Target: { Arn: STUB, RoleArn: undefined } }, /RoleArn/],
      ["a retry policy out of range", { Target: { Arn: STUB, RoleArn: "r", RetryPolicy: { MaximumRetryAttempts: 186 } } }, /MaximumRetryAttempts/],
      ["a flexible window without its size", { FlexibleTimeWindow: { Mode: "FLEXIBLE" } }, /MaximumWindowInMinutes/],
    ] as [string, Partial<CreateScheduleCommandInput>, RegExp][])("answers ValidationException for %s", async (_what, fields, message) => {
      const { client } = await standIn();
      const error = await client.send(new CreateScheduleCommand(aTimer(aStub(), 0, fields))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationException);
      expect((error as Error).message).toMatch(message);
    });
  });

  describe("schedule groups", () => {
    it("has the default group and the timers' group from the start, and creates, gets and deletes others (with their schedules)", async () => {
      const { client } = await standIn();
      expect(await client.send(new GetScheduleGroupCommand({ Name: "default" }))).toMatchObject({ Name: "default", State: "ACTIVE" });
      expect(await client.send(new GetScheduleGroupCommand({ Name: GROUP }))).toMatchObject({ Arn: `arn:aws:scheduler:us-east-1:000000000000:schedule-group/${GROUP}` });
      await client.send(new CreateScheduleGroupCommand({ Name: "g1" }));
      expect((await client.send(new ListScheduleGroupsCommand({}))).ScheduleGroups!.map((g) => g.Name)).toEqual(["default", "g1", LOCAL_SCHEDULES.group, GROUP]);
      await expect(client.send(new CreateScheduleGroupCommand({ Name: "g1" }))).rejects.toBeInstanceOf(ConflictException);
      await client.send(new CreateScheduleCommand(aTimer(aStub(), 60_000, { Name: "in-g1", GroupName: "g1" })));
      await client.send(new DeleteScheduleGroupCommand({ Name: "g1" }));
      await expect(client.send(new GetScheduleGroupCommand({ Name: "g1" }))).rejects.toBeInstanceOf(ResourceNotFoundException);
      await expect(client.send(new GetScheduleCommand({ Name: "in-g1", GroupName: "g1" }))).rejects.toBeInstanceOf(ResourceNotFoundException);
      await expect(client.send(new DeleteScheduleGroupCommand({ Name: "default" }))).rejects.toBeInstanceOf(ValidationException);
    });
  });

  describe("with the timer port", () => {
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it("accepts the port's schedule as it is and fires the handler with the armed payload", async () => {
      const { running, client, clock } = await standIn();
      vi.stubEnv("TIMER_GROUP", GROUP);
      vi.stubEnv("TIMER_TARGET_ARN", STUB);
      vi.stubEnv("TIMER_ROLE_ARN", LOCAL_TIMERS.roleArn);
      vi.stubEnv("TIMER_LEAD_SECONDS", running.env.TIMER_LEAD_SECONDS!);
      const stub = aStub({ kind: "timeout" });
      await client.send(new CreateScheduleCommand(timerSchedule({ name: `port-${stub.id}`, at: new Date(START + 30_000), payload: stub }, clock.now())));
      clock.advance(30_000);
      await running.tick();
      expect(callsOf(stub.id).map((c) => c.event)).toEqual([stub]);
      await gone(client, `port-${stub.id}`);
    });

    it("gives the port its settings, and starts although the timer handler's module does not exist yet", async () => {
      const running = await startScheduler({ now: aClock().now, log: () => undefined, taskModule: (handler) => join(temporary, "nowhere", `${handler}.ts`) });
      started.push(running);
      expect(running.env).toEqual({
        AWS_ENDPOINT_URL_SCHEDULER: running.endpoint,
        TIMER_GROUP: "local-timers",
        TIMER_TARGET_ARN: "arn:aws:lambda:us-east-1:000000000000:function:workflow-timer",
        TIMER_ROLE_ARN: "arn:aws:iam::000000000000:role/local-scheduler",
        SCHEDULE_GROUP: "local-schedules",
        SCHEDULE_TARGET_ARN: "arn:aws:lambda:us-east-1:000000000000:function:workflow-schedule-fire",
        SCHEDULE_ROLE_ARN: "arn:aws:iam::000000000000:role/local-schedules",
        TIMER_LEAD_SECONDS: "0",
      });
    });
  });
});
