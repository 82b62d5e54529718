import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
} from "@aws-sdk/client-scheduler";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { armTimer, atExpression, disarmTimer, TIMER_RETRY_POLICY } from "../../../shared/engine/timers.js";
import { freezeDate } from "../../support/aws-mocks.js";

const scheduler = mockClient(SchedulerClient);
const NOW = freezeDate("2030-05-06T07:08:09.250Z");
const GROUP = "timers-test";
const TARGET = "arn:aws:lambda:us-east-1:123456789012:function:workflow-timer";
const ROLE = "arn:aws:iam::123456789012:role/scheduler-invokes-timer";

beforeEach(() => {
  scheduler.reset();
  vi.stubEnv("TIMER_GROUP", GROUP);
  vi.stubEnv("TIMER_TARGET_ARN", TARGET);
  vi.stubEnv("TIMER_ROLE_ARN", ROLE);
  // The cloud's default lead (60 s) unless a test says otherwise.
  vi.stubEnv("TIMER_LEAD_SECONDS", "");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const meta = { $metadata: {}, message: "x", Message: "x" };
const inMinutes = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000);
const payload = { kind: "timeout", runId: "0b7f6c1e-5a38-4a59-9f0a-2f1f4c7b1d11", nested: { attempt: 2 } };

describe("armTimer", () => {
  it("creates one self-deleting at() schedule in UTC that invokes the timer handler with the payload", async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: "arn" });
    await armTimer({ name: "timeout.0b7f6c1e", at: inMinutes(90), payload });
    expect(scheduler.commandCalls(CreateScheduleCommand).map((c) => c.args[0].input)).toEqual([
      {
        Name: "timeout.0b7f6c1e",
        GroupName: GROUP,
        ScheduleExpression: "at(2030-05-06T08:38:10)",
        ScheduleExpressionTimezone: "UTC",
        FlexibleTimeWindow: { Mode: "OFF" },
        ActionAfterCompletion: "DELETE",
        State: "ENABLED",
        Target: { Arn: TARGET, RoleArn: ROLE, Input: JSON.stringify(payload), RetryPolicy: TIMER_RETRY_POLICY },
      },
    ]);
    expect(scheduler.commandCalls(UpdateScheduleCommand)).toHaveLength(0);
  });

  it("moves a timer that is armed already: the same schedule, updated", async () => {
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException(meta));
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: "arn" });
    await armTimer({ name: "grace-1", at: inMinutes(10), payload: { kind: "grace" } });
    const created = scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input;
    const updated = scheduler.commandCalls(UpdateScheduleCommand).map((c) => c.args[0].input);
    expect(updated).toEqual([created]);
    expect(updated[0]).toMatchObject({ ScheduleExpression: "at(2030-05-06T07:18:10)", Target: { Input: '{"kind":"grace"}' } });
  });

  it("creates the timer again when it fired and deleted itself between the create and the update", async () => {
    scheduler.on(CreateScheduleCommand).rejectsOnce(new ConflictException(meta)).resolves({ ScheduleArn: "arn" });
    scheduler.on(UpdateScheduleCommand).rejects(new ResourceNotFoundException(meta));
    await armTimer({ name: "sleep-1", at: inMinutes(5), payload: {} });
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(2);
    expect(scheduler.commandCalls(UpdateScheduleCommand)).toHaveLength(1);
  });

  it("passes on what Scheduler refuses", async () => {
    scheduler.on(CreateScheduleCommand).rejects(new ValidationException(meta));
    await expect(armTimer({ name: "t", at: inMinutes(5), payload: {} })).rejects.toBeInstanceOf(ValidationException);
  });

  it("arms a timer that is due, or past, a minute from now in the cloud, and at once where the lead is 0 (locally)", async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: "arn" });
    await armTimer({ name: "past", at: inMinutes(-30), payload: {} });
    vi.stubEnv("TIMER_LEAD_SECONDS", "0");
    await armTimer({ name: "past-local", at: inMinutes(-30), payload: {} });
    expect(scheduler.commandCalls(CreateScheduleCommand).map((c) => c.args[0].input.ScheduleExpression)).toEqual([
      "at(2030-05-06T07:09:10)",
      "at(2030-05-06T07:08:10)",
    ]);
  });

  it.each(["", "a".repeat(65), "has space", "slash/name", "colon:name", "ünï"])("refuses the name %j without calling Scheduler", async (name) => {
    await expect(armTimer({ name, at: inMinutes(5), payload: {} })).rejects.toThrow(/Invalid timer name/);
    expect(scheduler.calls()).toHaveLength(0);
  });

  it("accepts names of UUIDs, dots, dashes and underscores up to 64 characters", async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: "arn" });
    await armTimer({ name: `timeout_${"0b7f6c1e-5a38-4a59-9f0a-2f1f4c7b1d11"}.run-2`, at: inMinutes(5), payload: {} });
    await armTimer({ name: "x".repeat(64), at: inMinutes(5), payload: {} });
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(2);
  });

  it("needs its settings", async () => {
    vi.stubEnv("TIMER_TARGET_ARN", "");
    await expect(armTimer({ name: "t", at: inMinutes(5), payload: {} })).rejects.toThrow("Missing environment setting TIMER_TARGET_ARN");
  });
});

describe("disarmTimer", () => {
  it("deletes the timer's schedule from the timers' group", async () => {
    scheduler.on(DeleteScheduleCommand).resolves({});
    await disarmTimer("timeout.0b7f6c1e");
    expect(scheduler.commandCalls(DeleteScheduleCommand).map((c) => c.args[0].input)).toEqual([{ Name: "timeout.0b7f6c1e", GroupName: GROUP }]);
  });

  it("is done when the timer fired already or never was", async () => {
    scheduler.on(DeleteScheduleCommand).rejects(new ResourceNotFoundException(meta));
    await expect(disarmTimer("gone")).resolves.toBeUndefined();
  });

  it("passes on other failures", async () => {
    scheduler.on(DeleteScheduleCommand).rejects(new ValidationException(meta));
    await expect(disarmTimer("t")).rejects.toBeInstanceOf(ValidationException);
  });

  it("refuses an invalid name", async () => {
    await expect(disarmTimer("no/slashes")).rejects.toThrow(/Invalid timer name/);
    expect(scheduler.calls()).toHaveLength(0);
  });
});

describe("atExpression", () => {
  const now = Date.parse("2030-01-01T00:00:00.000Z");
  it("writes the time in UTC to the second, rounding up", () => {
    expect(atExpression(new Date("2030-01-01T12:34:56.001+02:00"), now, 0)).toBe("at(2030-01-01T10:34:57)");
    expect(atExpression(new Date("2030-01-01T10:34:56.000Z"), now, 0)).toBe("at(2030-01-01T10:34:56)");
  });

  it("never arms sooner than the lead", () => {
    expect(atExpression(new Date(now + 10_000), now, 60)).toBe("at(2030-01-01T00:01:00)");
    expect(atExpression(new Date(now + 61_000), now, 60)).toBe("at(2030-01-01T00:01:01)");
  });

  it("refuses an invalid date", () => {
    expect(() => atExpression(new Date("nope"), now, 0)).toThrow(/valid date/);
  });
});
