import type { SchedulePolicy, ScheduleTimes } from "./spec.js";

/** One execution a schedule started (the detail's `recent_executions`). */
export interface ScheduleRecentExecution {
  scheduled_at: string;
  started_at: string;
  execution_id: string;
}

/**
 * A workflow schedule (`executions` table, `WS#<ws>` / `SCHED#<id>`; docs/workflows.md, "Schedules"). The
 * fire handler owns `nextAt`, `remaining`, `recent` and `buffered`; the API changes the definition, `paused`
 * and `note`, and recomputes `nextAt`.
 */
export interface ScheduleRecord {
  workspace: string;
  scheduleId: string;
  workflowId: string;
  workflowName: string;
  /** Pinned by `workflow_registration_id`; otherwise each fire routes as execute does. */
  registrationId: string | null;
  deploymentName: string | null;
  userId: string | null;
  input: unknown;
  times: ScheduleTimes;
  policy: SchedulePolicy;
  maxExecutions: number | null;
  /** Automatic fires left (null: unlimited; 0: exhausted). Decremented atomically by each one that starts or is buffered. */
  remaining: number | null;
  paused: boolean;
  note: string | null;
  /** The next nominal fire time, null when there is none (exhausted, past end_at, a spec with no more times). */
  nextAt: string | null;
  /** When the armed timer fires: `nextAt` plus its jitter. */
  fireAt: string | null;
  /** The last 10 started, newest last. */
  recent: ScheduleRecentExecution[];
  /** Nominal times held back by the overlap policy (buffer one / all), started as the running ones close. */
  buffered: string[];
  createdAt: string;
  updatedAt: string;
}

/** The detail lists this many future and recent executions. */
export const LISTED_EXECUTIONS = 10;
/** BUFFER_ALL holds at most this many fires (then the oldest policy, skip, applies). */
export const MAX_BUFFERED = 100;
