/**
 * Workflow schedules through the local API Gateway stand-in against DynamoDB Local, the local Step Functions
 * and the local Scheduler. Fires are driven with a fake clock: the test calls the fire handler's service with
 * the time it chooses (what the Scheduler stand-in does at the armed time), so no test sleeps for a schedule.
 * Schedules start in 2030, so the run's real-clock Scheduler never fires them on its own.
 */
import { GetScheduleCommand, SchedulerClient } from "@aws-sdk/client-scheduler";
import { describe, expect, it } from "vitest";
import { fireTimerName } from "../../../shared/services/workflows/schedule-timers.js";
import { fire, sweep } from "../../../shared/services/workflows/schedules.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { scheduleStore } from "../../../shared/store/workflows/schedules.js";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { seedPublished, workflowsClient } from "../../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const ws = () => tenant.caller.workspace;
const scheduler = new SchedulerClient({});

const GREETER = { StartAt: "Greet", States: { Greet: { Type: "Pass", Parameters: { "greeting.$": "States.Format('Hello {}', $.name)" }, End: true } } };
const SLEEPER = { StartAt: "Sleep", States: { Sleep: { Type: "Wait", Seconds: 3600, End: true } } };

const START = "2030-01-01T00:00:00.000Z";
const at = (iso: string) => Date.parse(iso);
const schedules = {
  create: (body: unknown) => http.request("POST", "/v1/workflows/schedules", { json: body }),
  list: (query: Record<string, string | number> = {}) => http.request("GET", "/v1/workflows/schedules", { query }),
  get: (id: string) => http.request("GET", `/v1/workflows/schedules/${encodeURIComponent(id)}`),
  update: (id: string, body: unknown) => http.request("PATCH", `/v1/workflows/schedules/${encodeURIComponent(id)}`, { json: body }),
  remove: (id: string) => http.request("DELETE", `/v1/workflows/schedules/${encodeURIComponent(id)}`),
  pause: (id: string, body?: unknown) => http.request("POST", `/v1/workflows/schedules/${encodeURIComponent(id)}/pause`, body === undefined ? {} : { json: body }),
  resume: (id: string, body?: unknown) => http.request("POST", `/v1/workflows/schedules/${encodeURIComponent(id)}/resume`, body === undefined ? {} : { json: body }),
  trigger: (id: string, body?: unknown) => http.request("POST", `/v1/workflows/schedules/${encodeURIComponent(id)}/trigger`, body === undefined ? {} : { json: body }),
};

/** Every hour from 2030-01-01, input `{name}`. */
const hourly = (over: Record<string, unknown> = {}, schedule: Record<string, unknown> = {}) => ({
  workflow_identifier: "greeter",
  schedule: { input: { name: "Ada" }, intervals: [{ every: "PT1H" }], start_at: START, ...schedule },
  ...over,
});

async function armedAt(id: string, fireAt: string): Promise<string | undefined> {
  try {
    const out = await scheduler.send(new GetScheduleCommand({ Name: fireTimerName(ws(), id, fireAt), GroupName: process.env.SCHEDULE_GROUP }));
    return out.ScheduleExpression;
  } catch {
    return undefined;
  }
}

describe("POST /v1/workflows/schedules", () => {
  it("creates a schedule (201 {schedule_id}), arms its first fire, and refuses the same id again (409 WF_1200)", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });

    const created = await schedules.create(hourly({ schedule_id: "nightly" }));
    const again = await schedules.create(hourly({ schedule_id: "nightly" }));
    const random = await schedules.create(hourly());

    expect(created).toMatchObject({ status: 201, body: { schedule_id: "nightly" } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("WF_1200");
    expect(random.status).toBe(201);
    expect(random.body.schedule_id).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await scheduleStore.get(ws(), "nightly");
    expect(stored).toMatchObject({ nextAt: "2030-01-01T00:00:00.000Z", fireAt: "2030-01-01T00:00:00.000Z", remaining: null, paused: false });
    expect(await armedAt("nightly", stored!.fireAt!)).toBe("at(2030-01-01T00:00:00)");
  });

  it("answers 422 naming the bad field of a bad spec, and 404 WF_1100 for an unknown workflow", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });

    const badCron = await schedules.create(hourly({}, { cron_expressions: ["61 * * * *"] }));
    const badZone = await schedules.create(hourly({}, { time_zone_name: "Mars/Olympus" }));
    const noTimes = await schedules.create({ workflow_identifier: "greeter", schedule: { input: {} } });
    const noInput = await schedules.create({ workflow_identifier: "greeter", schedule: { intervals: [{ every: "PT1H" }] } });
    const badOverlap = await schedules.create(hourly({}, { policy: { overlap: 9 } }));
    const unknown = await schedules.create(hourly({ workflow_identifier: "nobody" }));

    expect(badCron.status).toBe(422);
    expect(badCron.body).toMatchObject({ code: "WF_1200", detail: [{ loc: ["body", "schedule", "cron_expressions", 0] }] });
    expect(badZone.body.detail[0].loc).toEqual(["body", "schedule", "time_zone_name"]);
    expect(noTimes.body.detail[0].loc).toEqual(["body", "schedule", "calendars"]);
    expect(noInput.body.detail[0].loc).toEqual(["body", "schedule", "input"]);
    expect(badOverlap.status).toBe(422);
    expect(badOverlap.body.detail[0].loc).toEqual(["body", "schedule", "policy", "overlap"]);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("WF_1100");
  });
});

describe("GET /v1/workflows/schedules/{schedule_id}", () => {
  it("answers the definition with defaults, the next 10 fires and 404 WF_1201 for an unknown id", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "s1" }, { calendars: [{ hour: [{ start: 9 }], day_of_week: [{ start: 1, end: 5 }] }], time_zone_name: "Europe/Paris" }));

    const got = await schedules.get("s1");
    const missing = await schedules.get("nope");

    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      schedule_id: "s1",
      workflow_name: "greeter",
      paused: false,
      note: null,
      remaining_executions: null,
      input: { name: "Ada" },
      policy: { catchup_window_seconds: 31536000, overlap: 1, pause_on_failure: false },
      time_zone_name: "Europe/Paris",
      recent_executions: [],
    });
    expect(got.body.calendars[0]).toEqual({
      second: [{ start: 0, end: 0, step: 0 }],
      minute: [{ start: 0, end: 0, step: 0 }],
      hour: [{ start: 9, end: 0, step: 0 }],
      day_of_month: [{ start: 1, end: 31, step: 0 }],
      month: [{ start: 1, end: 12, step: 0 }],
      year: [],
      day_of_week: [{ start: 1, end: 5, step: 0 }],
      comment: null,
    });
    expect(got.body.future_executions).toHaveLength(10);
    // 2030-01-01 00:00Z and 01:00Z (hourly), then 08:00Z = 09:00 Paris (the calendar).
    expect(got.body.future_executions.slice(0, 3).map((f: { scheduled_at: string }) => f.scheduled_at)).toEqual([
      "2030-01-01T00:00:00.000Z",
      "2030-01-01T01:00:00.000Z",
      "2030-01-01T02:00:00.000Z",
    ]);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("WF_1201");
  });
});

describe("GET /v1/workflows/schedules/{schedule_id} without a time zone", () => {
  it("fills in time_zone_name UTC, in the detail and the list", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "zoneless" }));

    expect((await schedules.get("zoneless")).body.time_zone_name).toBe("UTC");
    expect((await schedules.list()).body.schedules.find((s: { schedule_id: string }) => s.schedule_id === "zoneless").time_zone_name).toBe("UTC");
  });
});

describe("schedule fires (the fire handler on a fake clock)", () => {
  it("starts the execution with schedule_id on its run and events, records it, re-arms the next, and counts remaining_executions", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "counted" }, { max_executions: 2, policy: { overlap: 6 } }));

    const first = await fire(ws(), "counted", at("2030-01-01T00:00:05Z"));
    const early = await fire(ws(), "counted", at("2030-01-01T00:30:00Z"));
    const second = await fire(ws(), "counted", at("2030-01-01T01:00:01Z"));
    const third = await fire(ws(), "counted", at("2030-01-01T02:00:01Z"));

    expect(first.started).toEqual(["counted-20300101T000000Z"]);
    expect(early.started).toEqual([]);
    expect(second.started).toEqual(["counted-20300101T010000Z"]);
    expect(third.started).toEqual([]);
    const run = await runStore.getExecution(ws(), "counted-20300101T000000Z");
    expect(run).toMatchObject({ workflowName: "greeter" });
    const events = await http.events({ root_workflow_exec_id: "counted-20300101T000000Z" });
    expect(events.body.events[0]).toMatchObject({ event_type: "WORKFLOW_EXECUTION_STARTED", schedule_id: "counted" });
    const detail = (await schedules.get("counted")).body;
    expect(detail.remaining_executions).toBe(0);
    expect(detail.future_executions).toEqual([]);
    expect(detail.recent_executions).toEqual([
      { scheduled_at: "2030-01-01T00:00:00.000Z", started_at: expect.any(String), execution_id: "counted-20300101T000000Z" },
      { scheduled_at: "2030-01-01T01:00:00.000Z", started_at: expect.any(String), execution_id: "counted-20300101T010000Z" },
    ]);
    expect((await scheduleStore.get(ws(), "counted"))!.fireAt).toBeNull();
  });

  it("collapses fires missed while nothing ran into one, and skips one later than the catch-up window", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "late" }, { policy: { catchup_window_seconds: 600 } }));
    await schedules.create(hourly({ schedule_id: "missed" }));

    const tooLate = await fire(ws(), "late", at("2030-01-01T00:20:00Z"));
    const once = await fire(ws(), "missed", at("2030-01-01T05:30:00Z"));

    expect(tooLate).toMatchObject({ started: [], skipped: [{ scheduledAt: "2030-01-01T00:00:00.000Z", reason: "catchup" }] });
    expect(once.started).toEqual(["missed-20300101T000000Z"]);
    expect((await scheduleStore.get(ws(), "missed"))!.nextAt).toBe("2030-01-01T06:00:00.000Z");
    expect(await armedAt("missed", "2030-01-01T06:00:00.000Z")).toBe("at(2030-01-01T06:00:00)");
  });

  it("a fire delivered twice at once starts one execution", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "twice" }, { policy: { overlap: 6 } }));

    const outcomes = await Promise.all(Array.from({ length: 6 }, () => fire(ws(), "twice", at("2030-01-01T00:00:01Z"))));

    expect(outcomes.flatMap((o) => o.started)).toEqual(["twice-20300101T000000Z"]);
  });
});

describe("overlap policies", () => {
  const sleeping = async (id: string, overlap: number) => {
    await seedPublished(ws(), SLEEPER, { workflow: { name: "sleeper" } });
    await schedules.create({ workflow_identifier: "sleeper", schedule_id: id, schedule: { input: {}, intervals: [{ every: "PT1H" }], start_at: START, policy: { overlap } } });
    expect((await fire(ws(), id, at("2030-01-01T00:00:01Z"))).started).toHaveLength(1);
  };
  const second = (id: string) => fire(ws(), id, at("2030-01-01T01:00:01Z"));

  it("1 skip: no second execution while the first runs", async () => {
    await sleeping("skip", 1);
    expect(await second("skip")).toMatchObject({ started: [], skipped: [{ reason: "overlap" }] });
    await http.terminate("skip-20300101T000000Z");
  });

  it("2 buffer one: the second waits and starts when the first closes", async () => {
    await sleeping("buffer", 2);
    expect(await second("buffer")).toMatchObject({ started: [], buffered: ["2030-01-01T01:00:00.000Z"] });
    expect((await fire(ws(), "buffer", at("2030-01-01T02:00:01Z"))).skipped[0]?.reason).toBe("buffer-full");

    await http.terminate("buffer-20300101T000000Z");
    const drained = await fire(ws(), "buffer", at("2030-01-01T02:10:00Z"));

    expect(drained.started).toEqual(["buffer-20300101T010000Z"]);
    expect((await scheduleStore.get(ws(), "buffer"))!.buffered).toEqual([]);
    await http.terminate("buffer-20300101T010000Z");
  });

  it("5 terminate other: the running one is TERMINATED and the new one starts", async () => {
    await sleeping("term", 5);
    expect((await second("term")).started).toEqual(["term-20300101T010000Z"]);
    expect((await http.execution("term-20300101T000000Z")).body.status).toBe("TERMINATED");
    await http.terminate("term-20300101T010000Z");
  });

  it("4 cancel other: the running one is CANCELED and the new one starts", async () => {
    await sleeping("cancel", 4);
    expect((await second("cancel")).started).toEqual(["cancel-20300101T010000Z"]);
    expect((await http.execution("cancel-20300101T000000Z")).body.status).toBe("CANCELED");
    await http.terminate("cancel-20300101T010000Z");
  });

  it("6 allow all: both run", async () => {
    await sleeping("all", 6);
    expect((await second("all")).started).toEqual(["all-20300101T010000Z"]);
    await http.terminate("all-20300101T000000Z");
    await http.terminate("all-20300101T010000Z");
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/pause", () => {
  it("stops automatic fires (204) and keeps the note; resume fires again from the next time after now", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "p" }));

    const paused = await schedules.pause("p", { note: "maintenance" });
    const whilePaused = await fire(ws(), "p", at("2030-01-01T00:00:01Z"));

    expect(paused.status).toBe(204);
    expect(whilePaused.started).toEqual([]);
    expect((await schedules.get("p")).body).toMatchObject({ paused: true, note: "maintenance" });
    expect(await armedAt("p", "2030-01-01T00:00:00.000Z")).toBeUndefined();
    expect((await schedules.list({ status: "paused" })).body.schedules.map((s: { schedule_id: string }) => s.schedule_id)).toEqual(["p"]);
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/resume", () => {
  it("re-arms the schedule (204) with its note", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "r" }));
    await schedules.pause("r");

    const resumed = await schedules.resume("r", { note: "back" });
    const noBody = await schedules.resume("r");

    expect(resumed.status).toBe(204);
    expect(noBody.status).toBe(204);
    const stored = await scheduleStore.get(ws(), "r");
    expect(stored).toMatchObject({ paused: false, note: null, nextAt: START });
    expect(await armedAt("r", stored!.fireAt!)).toBe("at(2030-01-01T00:00:00)");
    expect((await fire(ws(), "r", at("2030-01-01T00:00:01Z"))).started).toHaveLength(1);
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/trigger", () => {
  it("fires now (204), not counted against remaining_executions, under the overlap override", async () => {
    await seedPublished(ws(), SLEEPER, { workflow: { name: "sleeper" } });
    await schedules.create({ workflow_identifier: "sleeper", schedule_id: "t", schedule: { input: {}, intervals: [{ every: "PT1H" }], start_at: START, max_executions: 1 } });

    const first = await schedules.trigger("t");
    const skipped = await schedules.trigger("t", { overlap: 1 });
    const allowed = await schedules.trigger("t", { overlap: 6 });
    const unknown = await schedules.trigger("nope");

    expect([first.status, skipped.status, allowed.status]).toEqual([204, 204, 204]);
    const detail = (await schedules.get("t")).body;
    expect(detail.recent_executions).toHaveLength(2);
    expect(detail.remaining_executions).toBe(1);
    expect(unknown.status).toBe(404);
    for (const { execution_id } of detail.recent_executions) await http.terminate(execution_id);
  });
});

describe("POST /v1/workflows/schedules/{schedule_id}/trigger on a paused schedule", () => {
  it("starts one execution now; the schedule stays paused, unarmed, its remaining count untouched", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "tp" }, { max_executions: 2 }));
    await schedules.pause("tp", { note: "holiday" });

    const triggered = await schedules.trigger("tp");

    expect(triggered.status).toBe(204);
    const detail = (await schedules.get("tp")).body;
    expect(detail).toMatchObject({ paused: true, note: "holiday", remaining_executions: 2 });
    expect(detail.recent_executions).toEqual([expect.objectContaining({ execution_id: expect.stringMatching(/^tp-\d{8}T\d{6}Z-[0-9a-f]{8}$/) })]);
    expect(await armedAt("tp", START)).toBeUndefined();
    expect((await fire(ws(), "tp", at("2030-01-01T00:00:01Z"))).started).toEqual([]);
  });
});

describe("PATCH /v1/workflows/schedules/{schedule_id}", () => {
  it("changes only the supplied fields and recomputes the next fire", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "u" }, { policy: { overlap: 2 } }));

    const updated = await schedules.update("u", { schedule: { intervals: [{ every: "PT15M", offset: "PT5M" }], max_executions: 3 } });
    const bad = await schedules.update("u", { schedule: { jitter: "soon" } });
    const missing = await schedules.update("nope", { schedule: {} });

    expect(updated).toMatchObject({ status: 200, body: { schedule_id: "u" } });
    const detail = (await schedules.get("u")).body;
    expect(detail).toMatchObject({ input: { name: "Ada" }, start_at: START, policy: { overlap: 2 }, remaining_executions: 3, intervals: [{ every: "PT15M", offset: "PT5M" }] });
    expect(detail.future_executions.map((f: { scheduled_at: string }) => f.scheduled_at)).toEqual(["2030-01-01T00:05:00.000Z", "2030-01-01T00:20:00.000Z", "2030-01-01T00:35:00.000Z"]);
    expect(await armedAt("u", "2030-01-01T00:05:00.000Z")).toBe("at(2030-01-01T00:05:00)");
    expect(await armedAt("u", START)).toBeUndefined();
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "schedule", "jitter"]);
    expect(missing.status).toBe(404);
  });
});

describe("DELETE /v1/workflows/schedules/{schedule_id}", () => {
  it("deletes the schedule and disarms its fire (204); then 404", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "d" }));

    const deleted = await schedules.remove("d");

    expect(deleted.status).toBe(204);
    expect(await armedAt("d", START)).toBeUndefined();
    expect((await schedules.get("d")).status).toBe(404);
    expect((await schedules.remove("d")).status).toBe(404);
    expect(await fire(ws(), "d", at("2030-01-01T00:00:01Z"))).toMatchObject({ started: [] });
  });
});

describe("GET /v1/workflows/schedules", () => {
  it("pages by token and filters; another workspace's are not listed", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    for (const id of ["a", "b", "c"]) await schedules.create(hourly({ schedule_id: id }));
    const other = await newTenant();
    await seedPublished(other.caller.workspace, GREETER, { workflow: { name: "greeter" } });

    const first = await schedules.list({ page_size: 2 });
    const second = await schedules.list({ page_size: 2, next_page_token: first.body.next_page_token });
    const searched = await schedules.list({ search: "B" });
    const byWorkflow = await schedules.list({ workflow_name: "other" });
    const bad = await schedules.list({ next_page_token: "garbage" });

    expect(first.status).toBe(200);
    expect(first.body.schedules.map((s: { schedule_id: string }) => s.schedule_id)).toEqual(["a", "b"]);
    expect(second.body).toMatchObject({ schedules: [{ schedule_id: "c" }], next_page_token: null });
    expect(searched.body.schedules.map((s: { schedule_id: string }) => s.schedule_id)).toEqual(["b"]);
    expect(byWorkflow.body.schedules).toEqual([]);
    expect(bad.status).toBe(422);
  });
});

describe("the sweeper", () => {
  it("re-arms a schedule whose armed fire is long past", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });
    await schedules.create(hourly({ schedule_id: "lost" }));

    const { rearmed } = await sweep(at("2030-01-01T00:10:00Z"));

    expect(rearmed).toBeGreaterThanOrEqual(1);
    expect(await armedAt("lost", "2030-01-01T00:10:00.000Z")).toBe("at(2030-01-01T00:10:00)");
  });
});
