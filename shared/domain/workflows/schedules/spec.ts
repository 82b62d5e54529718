import { Cron } from "croner";
import type { ValidationIssue } from "../../errors.js";

/**
 * A workflow schedule's specification as the API carries it (reference/workflows.md §1.7, OA:ScheduleDefinition),
 * normalized: every list present, every range with its end and step, the policy with its defaults. Stored as is
 * and echoed by the detail.
 */
export interface ScheduleRange {
  start: number;
  /** Below start: start (a single value). */
  end: number;
  /** 0: 1. */
  step: number;
}

export const CALENDAR_FIELDS = ["second", "minute", "hour", "day_of_month", "month", "year", "day_of_week"] as const;
export type CalendarField = (typeof CALENDAR_FIELDS)[number];

export type ScheduleCalendar = Record<CalendarField, ScheduleRange[]> & { comment: string | null };

export interface ScheduleInterval {
  /** ISO 8601 duration, e.g. PT15M. */
  every: string;
  offset: string | null;
}

/** The wire's integer overlap policy (reference/workflows.md §1.7). */
export const OVERLAP = { SKIP: 1, BUFFER_ONE: 2, BUFFER_ALL: 3, CANCEL_OTHER: 4, TERMINATE_OTHER: 5, ALLOW_ALL: 6 } as const;
export type OverlapPolicy = (typeof OVERLAP)[keyof typeof OVERLAP];

export interface SchedulePolicy {
  catchup_window_seconds: number;
  overlap: OverlapPolicy;
  pause_on_failure: boolean;
}

/** The times part: what the evaluator reads. */
export interface ScheduleTimes {
  calendars: ScheduleCalendar[];
  intervals: ScheduleInterval[];
  cron_expressions: string[];
  skip: ScheduleCalendar[];
  start_at: string | null;
  end_at: string | null;
  jitter: string | null;
  time_zone_name: string | null;
}

/** Defaults of a calendar field that is absent or empty (Temporal's): second, minute, hour 0; every day, month, year, weekday. */
export const CALENDAR_DEFAULTS: Record<CalendarField, ScheduleRange[]> = {
  second: [{ start: 0, end: 0, step: 0 }],
  minute: [{ start: 0, end: 0, step: 0 }],
  hour: [{ start: 0, end: 0, step: 0 }],
  day_of_month: [{ start: 1, end: 31, step: 0 }],
  month: [{ start: 1, end: 12, step: 0 }],
  year: [],
  day_of_week: [{ start: 0, end: 6, step: 0 }],
};

/** What each field may hold; day_of_week 0 is Sunday. */
export const CALENDAR_BOUNDS: Record<CalendarField, [number, number]> = {
  second: [0, 59],
  minute: [0, 59],
  hour: [0, 23],
  day_of_month: [1, 31],
  month: [1, 12],
  year: [1970, 2999],
  day_of_week: [0, 6],
};

export const DEFAULT_POLICY: SchedulePolicy = { catchup_window_seconds: 31_536_000, overlap: OVERLAP.SKIP, pause_on_failure: false };

/** The longest interval and jitter a schedule takes (times stay well inside what a date can hold). */
export const MAX_EVERY_MS = 10 * 366 * 86_400_000;
export const MAX_JITTER_MS = 7 * 86_400_000;
/** About the year 9999: later times are not listed or armed. */
export const MAX_INSTANT_MS = 253_402_300_799_000;

const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/**
 * An ISO 8601 duration of fixed length in milliseconds (weeks, days, hours, minutes, seconds: `PT15M`,
 * `P1DT2H`, `PT300S`); undefined for anything else, including years and months (not a fixed length).
 */
export function durationMs(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m || text === "P" || text.endsWith("T")) return undefined;
  const [, w, d, h, min, s] = m;
  const ms = ((Number(w ?? 0) * 7 + Number(d ?? 0)) * 86_400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0)) * 1000;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** One range as a cron field: `a`, `a-b`, `a-b/s`. */
function rangeField(r: ScheduleRange): string {
  const end = r.end < r.start ? r.start : r.end;
  const step = r.step <= 0 ? 1 : r.step;
  if (end === r.start) return String(r.start);
  return step === 1 ? `${r.start}-${end}` : `${r.start}-${end}/${step}`;
}

function calendarField(ranges: ScheduleRange[] | undefined, field: CalendarField): string {
  const list = ranges?.length ? ranges : CALENDAR_DEFAULTS[field];
  return list.length ? list.map(rangeField).join(",") : "*";
}

/**
 * A calendar as croner's 7-part pattern (second minute hour day month weekday year). The fields combine with
 * AND, day of month included (`domAndDow`), unlike a classic cron's OR.
 */
export function calendarPattern(calendar: Partial<ScheduleCalendar>): string {
  const order: CalendarField[] = ["second", "minute", "hour", "day_of_month", "month", "day_of_week", "year"];
  return order.map((field) => calendarField(calendar[field], field)).join(" ");
}

export const calendarCron = (calendar: Partial<ScheduleCalendar>, timezone: string) =>
  new Cron(calendarPattern(calendar), { paused: true, timezone, mode: "7-part", domAndDow: true });

/** A 5-field cron expression (minute hour day month weekday; `L`, names, `@daily`… as croner reads them), classic OR of day and weekday. */
export const expressionCron = (expression: string, timezone: string) => new Cron(expression, { paused: true, timezone, mode: "5-part" });

export function validTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Everything wrong with a schedule's times, each issue located under `at` (e.g. `["body","schedule"]`): ranges
 * outside their field, cron expressions croner refuses, durations that are not fixed ISO 8601 ones, an unknown
 * time zone, `end_at` before `start_at`, a schedule with no times at all.
 */
export function timesIssues(times: Partial<ScheduleTimes>, at: (string | number)[], options: { requireTimes?: boolean } = {}): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const issue = (loc: (string | number)[], msg: string) => issues.push({ loc: [...at, ...loc], msg, type: "value_error" });
  const zone = times.time_zone_name ?? "UTC";
  const zoneOk = validTimeZone(zone);
  if (!zoneOk) issue(["time_zone_name"], `Unknown IANA time zone '${zone}'`);
  const calendars = (name: "calendars" | "skip") =>
    (times[name] ?? []).forEach((calendar, i) => {
      for (const field of CALENDAR_FIELDS) {
        const [low, high] = CALENDAR_BOUNDS[field];
        (calendar[field] ?? []).forEach((r, j) => {
          if (r.start < low || r.start > high || (r.end > r.start && r.end > high)) issue([name, i, field, j], `${field} ranges must lie within ${low}..${high}`);
          if (r.step < 0) issue([name, i, field, j, "step"], "step must be 0 or more");
        });
      }
      if (!issues.length && zoneOk) {
        try {
          calendarCron(calendar, zone);
        } catch (error) {
          issue([name, i], `Not a usable calendar: ${(error as Error).message}`);
        }
      }
    });
  calendars("calendars");
  calendars("skip");
  (times.cron_expressions ?? []).forEach((expression, i) => {
    try {
      expressionCron(expression, zoneOk ? zone : "UTC");
    } catch (error) {
      issue(["cron_expressions", i], `Not a 5-field cron expression: ${(error as Error).message}`);
    }
  });
  (times.intervals ?? []).forEach((interval, i) => {
    const every = durationMs(interval.every);
    if (every === undefined || every < 1000 || every > MAX_EVERY_MS) issue(["intervals", i, "every"], "every must be an ISO 8601 duration from 1 second to 10 years, without years or months, e.g. PT15M");
    if (interval.offset !== null && interval.offset !== undefined && durationMs(interval.offset) === undefined) {
      issue(["intervals", i, "offset"], "offset must be an ISO 8601 duration without years or months, e.g. PT5M");
    }
  });
  if (times.jitter !== null && times.jitter !== undefined && !((durationMs(times.jitter) ?? Infinity) <= MAX_JITTER_MS)) {
    issue(["jitter"], "jitter must be an ISO 8601 duration of at most 7 days, without years or months, e.g. PT5M");
  }
  for (const field of ["start_at", "end_at"] as const) {
    const value = times[field];
    if (value && !(Math.abs(Date.parse(value)) < MAX_INSTANT_MS)) issue([field], `${field} must be a date between the years 1 and 9999`);
  }
  const start = times.start_at ? Date.parse(times.start_at) : null;
  const end = times.end_at ? Date.parse(times.end_at) : null;
  if (start !== null && end !== null && end < start) issue(["end_at"], "end_at is before start_at");
  if (options.requireTimes && !(times.calendars?.length || times.intervals?.length || times.cron_expressions?.length)) {
    issue(["calendars"], "A schedule needs at least one of calendars, intervals or cron_expressions");
  }
  return issues;
}
