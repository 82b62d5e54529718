import { describe, expect, it } from "vitest";
import { evaluator, jittered } from "../../../../../shared/domain/workflows/schedules/evaluator.js";
import { calendarPattern, durationMs, timesIssues, type ScheduleTimes } from "../../../../../shared/domain/workflows/schedules/spec.js";

const times = (over: Partial<ScheduleTimes>): ScheduleTimes => ({
  calendars: [],
  intervals: [],
  cron_expressions: [],
  skip: [],
  start_at: null,
  end_at: null,
  jitter: null,
  time_zone_name: null,
  ...over,
});
const iso = (ms: number[]) => ms.map((t) => new Date(t).toISOString());
const at = (s: string) => Date.parse(s);
const range = (start: number, end = 0, step = 0) => [{ start, end, step }];

describe("schedule evaluator: known calendars", () => {
  it("every minute (cron)", () => {
    expect(iso(evaluator(times({ cron_expressions: ["* * * * *"] })).next(at("2026-01-01T00:00:30Z"), 3))).toEqual([
      "2026-01-01T00:01:00.000Z",
      "2026-01-01T00:02:00.000Z",
      "2026-01-01T00:03:00.000Z",
    ]);
  });

  it("every minute (calendar: minute 0-59, hour 0-23)", () => {
    const e = evaluator(times({ calendars: [{ ...calendar(), minute: range(0, 59), hour: range(0, 23) }] }));
    expect(iso(e.next(at("2026-01-01T23:58:00Z"), 3))).toEqual(["2026-01-01T23:59:00.000Z", "2026-01-02T00:00:00.000Z", "2026-01-02T00:01:00.000Z"]);
  });

  it("every 15 minutes from a 5-minute offset (interval, epoch-aligned)", () => {
    const e = evaluator(times({ intervals: [{ every: "PT15M", offset: "PT5M" }] }));
    expect(iso(e.next(at("2026-01-01T00:05:00Z"), 4))).toEqual([
      "2026-01-01T00:20:00.000Z",
      "2026-01-01T00:35:00.000Z",
      "2026-01-01T00:50:00.000Z",
      "2026-01-01T01:05:00.000Z",
    ]);
    // PT4H + PT30M fires at 00:30, 04:30, … (reference §1.7)
    expect(iso(evaluator(times({ intervals: [{ every: "PT4H", offset: "PT30M" }] })).next(at("2026-01-01T00:00:00Z"), 2))).toEqual([
      "2026-01-01T00:30:00.000Z",
      "2026-01-01T04:30:00.000Z",
    ]);
  });

  it("every 15 minutes from an offset (calendar minute 5-59/15)", () => {
    const e = evaluator(times({ calendars: [{ ...calendar(), minute: range(5, 59, 15), hour: range(0, 23) }] }));
    expect(iso(e.next(at("2026-01-01T00:50:00Z"), 3))).toEqual(["2026-01-01T01:05:00.000Z", "2026-01-01T01:20:00.000Z", "2026-01-01T01:35:00.000Z"]);
  });

  it("the last day of the month (cron L), leap year included", () => {
    const e = evaluator(times({ cron_expressions: ["0 12 L * *"] }));
    expect(iso(e.next(at("2028-01-15T00:00:00Z"), 3))).toEqual(["2028-01-31T12:00:00.000Z", "2028-02-29T12:00:00.000Z", "2028-03-31T12:00:00.000Z"]);
  });

  it("weekdays at 09:00 in Europe/Paris across both daylight-saving changes of 2026", () => {
    const e = evaluator(times({ calendars: [{ ...calendar(), hour: range(9), day_of_week: range(1, 5) }], time_zone_name: "Europe/Paris" }));
    // Spring forward on Sunday 29 March: 09:00 is 08:00Z before, 07:00Z after.
    expect(iso(e.next(at("2026-03-26T12:00:00Z"), 3))).toEqual(["2026-03-27T08:00:00.000Z", "2026-03-30T07:00:00.000Z", "2026-03-31T07:00:00.000Z"]);
    // Fall back on Sunday 25 October: 07:00Z before, 08:00Z after.
    expect(iso(e.next(at("2026-10-22T12:00:00Z"), 3))).toEqual(["2026-10-23T07:00:00.000Z", "2026-10-26T08:00:00.000Z", "2026-10-27T08:00:00.000Z"]);
  });

  it("a wall time in the spring-forward gap fires once after it; one in the fall-back overlap fires once", () => {
    const e = evaluator(times({ cron_expressions: ["30 2 * * *"], time_zone_name: "Europe/Paris" }));
    const spring = e.next(at("2026-03-28T02:00:00Z"), 2);
    expect(iso(spring)).toEqual(["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]);
    const autumn = e.next(at("2026-10-24T02:00:00Z"), 2);
    expect(iso(autumn)).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
  });

  it("the union of calendars, intervals and crons, minus a skip window", () => {
    const e = evaluator(
      times({
        intervals: [{ every: "PT1H", offset: null }],
        cron_expressions: ["30 * * * *"],
        // 03:00–05:59 skipped (hour 3..5, any minute)
        skip: [{ ...calendar(), hour: range(3, 5), minute: range(0, 59) }],
      }),
    );
    expect(iso(e.next(at("2026-01-01T01:40:00Z"), 5))).toEqual([
      "2026-01-01T02:00:00.000Z",
      "2026-01-01T02:30:00.000Z",
      "2026-01-01T06:00:00.000Z",
      "2026-01-01T06:30:00.000Z",
      "2026-01-01T07:00:00.000Z",
    ]);
  });

  it("start_at and end_at bound the times (both inclusive)", () => {
    const e = evaluator(times({ intervals: [{ every: "PT1H", offset: null }], start_at: "2026-01-01T05:00:00Z", end_at: "2026-01-01T07:00:00Z" }));
    expect(iso(e.next(at("2026-01-01T00:00:00Z"), 10))).toEqual(["2026-01-01T05:00:00.000Z", "2026-01-01T06:00:00.000Z", "2026-01-01T07:00:00.000Z"]);
    expect(e.next(at("2026-01-01T07:00:00Z"), 10)).toEqual([]);
  });

  it("calendars combine day of month AND weekday; a year range limits the years", () => {
    const friday13 = evaluator(times({ calendars: [{ ...calendar(), day_of_month: range(13), day_of_week: range(5), year: range(2026, 2027) }] }));
    expect(iso(friday13.next(at("2026-01-01T00:00:00Z"), 5))).toEqual([
      "2026-02-13T00:00:00.000Z",
      "2026-03-13T00:00:00.000Z",
      "2026-11-13T00:00:00.000Z",
      "2027-08-13T00:00:00.000Z",
    ]);
  });

  it("a skip that covers everything answers no times, without looping forever", () => {
    const e = evaluator(times({ cron_expressions: ["* * * * *"], skip: [{ ...calendar(), minute: range(0, 59), hour: range(0, 23) }] }));
    expect(e.next(at("2026-01-01T00:00:00Z"), 3)).toEqual([]);
  });
});

describe("jitter", () => {
  it("stays in [0, jitter) and never reaches the next nominal time", () => {
    const minute = 60_000;
    for (let i = 0; i < 500; i++) {
      const nominal = at("2026-01-01T00:00:00Z") + i * minute;
      const five = jittered("s1", nominal, nominal + 10 * minute, 5 * minute);
      expect(five - nominal).toBeGreaterThanOrEqual(0);
      expect(five - nominal).toBeLessThan(5 * minute);
      const capped = jittered("s1", nominal, nominal + minute, 5 * minute);
      expect(capped).toBeLessThan(nominal + minute);
    }
    // The same schedule and time: the same delay (a re-arm never moves it).
    expect(jittered("s1", 1_000_000, null, 60_000)).toBe(jittered("s1", 1_000_000, null, 60_000));
    expect(jittered("s1", 1_000_000, null, 0)).toBe(1_000_000);
  });
});

describe("spec checks", () => {
  it("durations are fixed ISO 8601 ones", () => {
    expect(durationMs("PT15M")).toBe(900_000);
    expect(durationMs("P1DT2H")).toBe(93_600_000);
    expect(durationMs("PT1.5S")).toBe(1500);
    expect(durationMs("P1M")).toBeUndefined();
    expect(durationMs("P")).toBeUndefined();
    expect(durationMs("15m")).toBeUndefined();
  });

  it("names the bad field", () => {
    const issues = timesIssues(
      {
        cron_expressions: ["61 * * * *"],
        intervals: [{ every: "P1M", offset: null }],
        time_zone_name: "Mars/Olympus",
        calendars: [{ ...calendar(), hour: range(25) }],
        jitter: "soon",
        start_at: "2026-02-01T00:00:00Z",
        end_at: "2026-01-01T00:00:00Z",
      },
      ["body", "schedule"],
    );
    expect(issues.map((i) => i.loc.join("."))).toEqual(
      expect.arrayContaining([
        "body.schedule.time_zone_name",
        "body.schedule.calendars.0.hour.0",
        "body.schedule.cron_expressions.0",
        "body.schedule.intervals.0.every",
        "body.schedule.jitter",
        "body.schedule.end_at",
      ]),
    );
    expect(timesIssues({}, ["s"], { requireTimes: true })[0]!.loc).toEqual(["s", "calendars"]);
  });

  it("a calendar is croner's 7-part pattern with the defaults", () => {
    expect(calendarPattern({})).toBe("0 0 0 1-31 1-12 0-6 *");
    expect(calendarPattern({ minute: [{ start: 5, end: 59, step: 15 }], hour: [{ start: 9, end: 3, step: 0 }] })).toBe("0 5-59/15 9 1-31 1-12 0-6 *");
  });
});

function calendar() {
  return {
    second: range(0),
    minute: range(0),
    hour: range(0),
    day_of_month: range(1, 31),
    month: range(1, 12),
    year: [],
    day_of_week: range(0, 6),
    comment: null,
  };
}
