/**
 * Workflow schedules through the official SDK (`client.workflows.schedules.*`): every request it sends is
 * accepted and every answer parses with its zod schemas (dates, the integer overlap policy, the 204s).
 */
import { Mistral } from "@mistralai/mistralai";
import { beforeAll, describe, expect, it } from "vitest";
import { fire } from "../../shared/services/workflows/schedules.js";
import { useEmbeddedApi } from "../support/api.js";
import { sdkClient } from "../support/sdk.js";
import { seedPublished } from "../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
const GREETER = { StartAt: "Greet", States: { Greet: { Type: "Pass", Result: { ok: true }, End: true } } };

beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  await seedPublished(tenant.caller.workspace, GREETER, { organization: tenant.caller.organization, workflow: { name: "sdk-scheduled" } });
});

describe("POST /v1/workflows/schedules through the SDK", () => {
  it("scheduleWorkflow sends calendars, intervals, crons, skip, policy and dates; getSchedule (GET /v1/workflows/schedules/{schedule_id}) parses the detail", async () => {
    const created = await client.workflows.schedules.scheduleWorkflow({
      workflowIdentifier: "sdk-scheduled",
      scheduleId: "sdk-weekdays",
      schedule: {
        input: { who: "sdk" },
        calendars: [{ hour: [{ start: 9 }], dayOfWeek: [{ start: 1, end: 5 }], comment: "weekdays at 9" }],
        intervals: [{ every: "PT6H", offset: "PT30M" }],
        cronExpressions: ["0 12 L * *"],
        skip: [{ month: [{ start: 12 }], dayOfMonth: [{ start: 25 }] }],
        startAt: new Date("2031-01-01T00:00:00Z"),
        endAt: new Date("2031-12-31T00:00:00Z"),
        jitter: "PT1M",
        timeZoneName: "Europe/Paris",
        policy: { overlap: 2, catchupWindowSeconds: 3600, pauseOnFailure: true },
        maxExecutions: 10,
      },
    });
    expect(created).toEqual({ scheduleId: "sdk-weekdays" });

    const detail = await client.workflows.schedules.getSchedule({ scheduleId: "sdk-weekdays" });
    expect(detail).toMatchObject({
      scheduleId: "sdk-weekdays",
      workflowName: "sdk-scheduled",
      paused: false,
      remainingExecutions: 10,
      timeZoneName: "Europe/Paris",
      startAt: new Date("2031-01-01T00:00:00Z"),
      policy: { overlap: 2, catchupWindowSeconds: 3600, pauseOnFailure: true },
      cronExpressions: ["0 12 L * *"],
      intervals: [{ every: "PT6H", offset: "PT30M" }],
      recentExecutions: [],
    });
    expect(detail.futureExecutions).toHaveLength(10);
    expect(detail.futureExecutions![0]!.scheduledAt).toEqual(new Date("2031-01-01T00:30:00Z"));
  });
});

describe("GET /v1/workflows/schedules through the SDK", () => {
  it("getSchedules pages with next_page_token and filters by status", async () => {
    for (const id of ["sdk-a", "sdk-b"]) {
      await client.workflows.schedules.scheduleWorkflow({ workflowIdentifier: "sdk-scheduled", scheduleId: id, schedule: { input: {}, cronExpressions: ["0 * * * *"], startAt: new Date("2031-01-01T00:00:00Z") } });
    }
    const ids: string[] = [];
    for await (const page of await client.workflows.schedules.getSchedules({ pageSize: 1 })) ids.push(...page.result.schedules.map((s) => s.scheduleId));
    expect(ids).toEqual(expect.arrayContaining(["sdk-a", "sdk-b", "sdk-weekdays"]));
    const active = await client.workflows.schedules.getSchedules({ status: "active", search: "sdk-a" });
    expect(active.result.schedules.map((s) => s.scheduleId)).toEqual(["sdk-a"]);
  });
});

describe("PATCH /v1/workflows/schedules/{schedule_id} through the SDK", () => {
  it("updateSchedule answers {schedule_id}; only the fields sent change", async () => {
    const updated = await client.workflows.schedules.updateSchedule({ scheduleId: "sdk-a", workflowScheduleUpdateRequest: { schedule: { cronExpressions: ["30 * * * *"] } } });
    expect(updated).toEqual({ scheduleId: "sdk-a" });
    const detail = await client.workflows.schedules.getSchedule({ scheduleId: "sdk-a" });
    expect(detail.cronExpressions).toEqual(["30 * * * *"]);
    expect(detail.futureExecutions![0]!.scheduledAt).toEqual(new Date("2031-01-01T00:30:00Z"));
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/pause through the SDK", () => {
  it("pauseSchedule and resumeSchedule (POST /v1/workflows/schedules/{schedule_id}/resume) answer 204, with and without a note", async () => {
    await client.workflows.schedules.pauseSchedule({ scheduleId: "sdk-b", workflowSchedulePauseRequest: { note: "quiet week" } });
    expect(await client.workflows.schedules.getSchedule({ scheduleId: "sdk-b" })).toMatchObject({ paused: true, note: "quiet week" });
    await client.workflows.schedules.resumeSchedule({ scheduleId: "sdk-b" });
    expect(await client.workflows.schedules.getSchedule({ scheduleId: "sdk-b" })).toMatchObject({ paused: false, note: null });
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/trigger through the SDK", () => {
  it("triggerSchedule fires now (204); the fire and the trigger show in recentExecutions", async () => {
    await fire(tenant.caller.workspace, "sdk-b", Date.parse("2031-01-01T00:00:01Z"));
    await client.workflows.schedules.triggerSchedule({ scheduleId: "sdk-b", workflowScheduleTriggerRequest: { overlap: 6 } });
    const detail = await client.workflows.schedules.getSchedule({ scheduleId: "sdk-b" });
    expect(detail.recentExecutions).toHaveLength(2);
    expect(detail.recentExecutions![0]).toMatchObject({ scheduledAt: new Date("2031-01-01T00:00:00Z"), executionId: "sdk-b-20310101T000000Z", startedAt: expect.any(Date) });
  });
});

describe("DELETE /v1/workflows/schedules/{schedule_id} through the SDK", () => {
  it("unscheduleWorkflow answers 204; then getSchedule is refused", async () => {
    await client.workflows.schedules.unscheduleWorkflow({ scheduleId: "sdk-a" });
    await expect(client.workflows.schedules.getSchedule({ scheduleId: "sdk-a" })).rejects.toThrow();
  });
});
