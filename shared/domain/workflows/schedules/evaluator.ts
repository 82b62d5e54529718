import { createHash } from "node:crypto";
import type { Cron } from "croner";
import { calendarCron, durationMs, expressionCron, MAX_INSTANT_MS, type ScheduleTimes } from "./spec.js";

/**
 * The schedule evaluator (reference/workflows.md §2.3 G): the union of calendars, intervals and cron
 * expressions, minus `skip`, in the schedule's IANA time zone, within `start_at`..`end_at`. Calendars and
 * crons are croner's (daylight saving: a wall time in a spring-forward gap fires once, at the first instant
 * after the gap; one in a fall-back overlap fires once, at its first occurrence); intervals are epoch-aligned
 * (`epoch + n·every + offset`, time-zone free). Pure: the same spec and instant give the same times.
 */
export interface Evaluator {
  /** Up to `count` nominal fire times strictly after `afterMs`, earliest first (epoch ms). */
  next(afterMs: number, count: number): number[];
  /** The jitter's upper bound in ms (0: none). */
  jitterMs: number;
}

/**
 * How long one call may look for times before answering what it found (a skip that covers nearly every
 * candidate, e.g. every minute minus a whole weekend, takes thousands of looks; one that covers all, forever).
 */
const MAX_CANDIDATES = 100_000;
const MAX_LOOK_MS = 150;

export function evaluator(times: ScheduleTimes): Evaluator {
  const zone = times.time_zone_name ?? "UTC";
  const crons: Cron[] = [...times.calendars.map((c) => calendarCron(c, zone)), ...times.cron_expressions.map((e) => expressionCron(e, zone))];
  const intervals = times.intervals.map((i) => {
    const every = durationMs(i.every)!;
    const offset = (durationMs(i.offset ?? "PT0S") ?? 0) % every;
    return { every, offset };
  });
  const skips = times.skip.map((c) => calendarCron(c, zone));
  const startMs = times.start_at ? Date.parse(times.start_at) : null;
  const endMs = times.end_at ? Date.parse(times.end_at) : null;

  const sources: ((t: number) => number | null)[] = [
    ...crons.map((cron) => (t: number) => cron.nextRun(new Date(t))?.getTime() ?? null),
    ...intervals.map(({ every, offset }) => (t: number) => (Math.floor((t - offset) / every) + 1) * every + offset),
  ];

  return {
    jitterMs: times.jitter ? (durationMs(times.jitter) ?? 0) : 0,
    next(afterMs, count) {
      const out: number[] = [];
      // Times before start_at are not looked at: the first candidate is at or after it.
      let t = startMs !== null ? Math.max(afterMs, startMs - 1) : afterMs;
      const deadline = performance.now() + MAX_LOOK_MS;
      for (let looked = 0; out.length < count && looked < MAX_CANDIDATES && (looked % 64 || performance.now() < deadline); looked++) {
        let n = Infinity;
        for (const source of sources) {
          const candidate = source(t);
          if (candidate !== null && candidate > t && candidate < n) n = candidate;
        }
        if (n === Infinity || n > MAX_INSTANT_MS || (endMs !== null && n > endMs)) break;
        t = n;
        const at = new Date(n);
        if (skips.some((skip) => skip.match(at))) continue;
        out.push(n);
      }
      return out;
    },
  };
}

/**
 * When a nominal time actually fires: delayed by a pseudo-random amount in [0, jitter), the same for the same
 * schedule and time (so re-arming never moves it), and never at or past the next nominal time.
 */
export function jittered(scheduleKey: string, nominalMs: number, nextNominalMs: number | null, jitterMs: number): number {
  if (jitterMs <= 0) return nominalMs;
  const room = nextNominalMs === null ? jitterMs : Math.min(jitterMs, nextNominalMs - nominalMs);
  if (room <= 1) return nominalMs;
  const hash = createHash("sha256").update(`${scheduleKey}#${nominalMs}`).digest();
  return nominalMs + (hash.readUInt32BE(0) % Math.min(room, 0xffffffff));
}
