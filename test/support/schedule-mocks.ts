import { CreateScheduleCommand, DeleteScheduleCommand, SchedulerClient, UpdateScheduleCommand } from "@aws-sdk/client-scheduler";
import { mockClient, type AwsClientStub } from "aws-sdk-client-mock";
import { beforeEach, vi } from "vitest";

/** The schedules channel's settings as CDK gives them to a function (shared/engine/timers.ts). */
export const SCHEDULE_ENV = { SCHEDULE_GROUP: "g-schedules", SCHEDULE_TARGET_ARN: "arn:aws:lambda:us-east-1:1:function:fire", SCHEDULE_ROLE_ARN: "arn:aws:iam::1:role/sch", TIMER_LEAD_SECONDS: "0" };

/**
 * The Scheduler client of this file's handlers, mocked (aws-sdk-client-mock): create, update and delete
 * succeed unless a test says otherwise; reset, and the schedules channel's settings stubbed, before each test.
 */
export function mockSchedulesPort(): AwsClientStub<SchedulerClient> {
  const scheduler = mockClient(SchedulerClient);
  beforeEach(() => {
    scheduler.reset();
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: "arn" });
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: "arn" });
    scheduler.on(DeleteScheduleCommand).resolves({});
    for (const [name, value] of Object.entries(SCHEDULE_ENV)) vi.stubEnv(name, value);
  });
  return scheduler;
}

/** What the mocked `startRun` answers: the execution ARN Step Functions would (the version's machine, named by the run). */
export const startedExecutionArn = async (versionArn: string, runId: string) => versionArn.replace(":stateMachine:", ":execution:").replace(/:\d+$/, `:${runId}`);
