import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from "@aws-sdk/client-scheduler";
import { setting } from "../config.js";

/**
 * One-time timers: an execution's timeout, a cancel's grace period, `platform:sleep_until`, later
 * workflow retries and schedules (docs/engine.md, "Timers"). Each timer is one EventBridge Scheduler
 * `at()` schedule in the group TIMER_GROUP that deletes itself once it has fired, and invokes the timer
 * handler (TIMER_TARGET_ARN, through the role TIMER_ROLE_ARN) with the armed payload as its event.
 * Locally the same calls go to infra/local/scheduler.ts (AWS_ENDPOINT_URL_SCHEDULER). One client per process.
 */
const scheduler = new SchedulerClient({});

/** What the timer handler receives: opaque to the port, the caller decides what it means. */
export type TimerPayload = Record<string, unknown>;

/**
 * The Lambda event of the timer handler: Scheduler delivers the target's `Input` (the armed payload's
 * JSON) as the event itself, with no envelope.
 */
export type TimerEvent<P extends TimerPayload = TimerPayload> = P;

export interface Timer {
  /** Ours, built from UUIDs; Scheduler's own rule for schedule names. */
  name: string;
  at: Date;
  payload: TimerPayload;
}

export const TIMER_NAME = /^[0-9A-Za-z_.-]{1,64}$/;

/**
 * Which group and handler a timer belongs to: the engine's timers (timeouts, grace periods, sleeps) or the
 * workflow schedules' fires, each its own group, target function and role (a route that arms schedule fires
 * cannot arm anything that invokes the timer handler, and the other way round).
 */
export type TimerChannel = "timers" | "schedules";

const CHANNEL_SETTINGS: Record<TimerChannel, { group: string; target: string; role: string }> = {
  timers: { group: "TIMER_GROUP", target: "TIMER_TARGET_ARN", role: "TIMER_ROLE_ARN" },
  schedules: { group: "SCHEDULE_GROUP", target: "SCHEDULE_TARGET_ARN", role: "SCHEDULE_ROLE_ARN" },
};

/**
 * Scheduler resolves schedules to the minute and is not documented to fire an at() that is past (or
 * about to pass) when it is created, so a timer due sooner than this is armed this far from now: a
 * due or past timer fires within about two minutes in the cloud, never silently not at all. The local
 * stack sets TIMER_LEAD_SECONDS=0 (its stand-in fires past at() at once).
 */
export const DEFAULT_LEAD_SECONDS = 60;

/** How Scheduler retries a failed invocation of the timer handler (throttling, a failing handler). */
export const TIMER_RETRY_POLICY = { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 86_400 } as const;

/** `at(YYYY-MM-DDTHH:MM:SS)` in UTC, no earlier than `lead` seconds after `now`, rounded up to the second. */
export function atExpression(at: Date, now: number = Date.now(), leadSeconds: number = leadSecondsSetting()): string {
  if (Number.isNaN(at.getTime())) throw new Error("A timer needs a valid date");
  const fireAt = Math.ceil(Math.max(at.getTime(), now + leadSeconds * 1000) / 1000) * 1000;
  return `at(${new Date(fireAt).toISOString().slice(0, 19)})`;
}

function leadSecondsSetting(): number {
  const raw = process.env.TIMER_LEAD_SECONDS;
  const value = raw === undefined || raw === "" ? DEFAULT_LEAD_SECONDS : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`TIMER_LEAD_SECONDS must be a number of seconds ≥ 0, not ${raw}`);
  return value;
}

function checkName(name: string): void {
  if (!TIMER_NAME.test(name)) throw new Error(`Invalid timer name ${JSON.stringify(name)}: 1 to 64 of [0-9A-Za-z_.-]`);
}

/** The whole schedule of a timer: CreateSchedule and UpdateSchedule take the same fields (an update replaces them all). */
export function timerSchedule({ name, at, payload }: Timer, now: number = Date.now(), channel: TimerChannel = "timers"): CreateScheduleCommandInput {
  const settings = CHANNEL_SETTINGS[channel];
  return {
    Name: name,
    GroupName: setting(settings.group),
    ScheduleExpression: atExpression(at, now),
    ScheduleExpressionTimezone: "UTC",
    FlexibleTimeWindow: { Mode: "OFF" },
    ActionAfterCompletion: "DELETE",
    State: "ENABLED",
    Target: {
      Arn: setting(settings.target),
      RoleArn: setting(settings.role),
      Input: JSON.stringify(payload),
      RetryPolicy: { ...TIMER_RETRY_POLICY },
    },
  };
}

/**
 * Arms the timer `name` to invoke the timer handler with `payload` at `at` (in the cloud up to about a
 * minute later; see DEFAULT_LEAD_SECONDS for a time that is past). Arming a name that is armed already
 * moves it: its time and payload are replaced. A timer that has fired is gone, so arming its name again
 * arms a new one.
 */
export async function armTimer(timer: Timer, channel: TimerChannel = "timers"): Promise<void> {
  checkName(timer.name);
  const schedule = timerSchedule(timer, Date.now(), channel);
  // Create, else update: a timer that fires (and deletes itself) between the two is created again.
  for (let attempt = 0; ; attempt++) {
    try {
      await scheduler.send(new CreateScheduleCommand(schedule));
      return;
    } catch (error) {
      if (!(error instanceof ConflictException)) throw error;
    }
    try {
      await scheduler.send(new UpdateScheduleCommand(schedule));
      return;
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException) || attempt >= 2) throw error;
    }
  }
}

/** Disarms the timer `name`; one that has fired already, or was never armed, is not an error. */
export async function disarmTimer(name: string, channel: TimerChannel = "timers"): Promise<void> {
  checkName(name);
  try {
    await scheduler.send(new DeleteScheduleCommand({ Name: name, GroupName: setting(CHANNEL_SETTINGS[channel].group) }));
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return;
    throw error;
  }
}
