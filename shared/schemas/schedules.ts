import * as z from "zod";
import { Uuid } from "./common.js";
import { queryInt } from "./query.js";

/**
 * Workflow schedules (docs/workflows.md, "Schedules"): OA:WorkflowScheduleRequest, ScheduleDefinition,
 * PartialScheduleDefinition, ScheduleDefinitionOutput and friends. The times' rules beyond types (ranges,
 * cron expressions, durations, the time zone) are the domain's (shared/domain/workflows/schedules/spec.ts).
 */

/** Ours: a schedule id keys the record and, with a time, names the executions it starts. */
export const ScheduleId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:@-]+$/, { message: "A schedule id is 1 to 200 of A-Z a-z 0-9 _ . : @ -" });

export const ScheduleIdParams = z.object({ schedule_id: z.string().min(1).max(1024) });

const Range = z.object({ start: z.int(), end: z.int().default(0), step: z.int().default(0) });
const Ranges = z.array(Range).max(100);

/** OA:ScheduleCalendar; absent fields are filled with their defaults by the service. */
export const ScheduleCalendar = z.object({
  second: Ranges.optional(),
  minute: Ranges.optional(),
  hour: Ranges.optional(),
  day_of_month: Ranges.optional(),
  month: Ranges.optional(),
  year: Ranges.optional(),
  day_of_week: Ranges.optional(),
  comment: z.string().max(1024).nullish(),
});
export type ScheduleCalendarIn = z.infer<typeof ScheduleCalendar>;

export const ScheduleInterval = z.object({ every: z.string().min(1).max(64), offset: z.string().max(64).nullish() });

const Overlap = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5), z.literal(6)], {
  message: "overlap is an integer 1-6: 1 skip, 2 buffer one, 3 buffer all, 4 cancel other, 5 terminate other, 6 allow all",
});

/** OA:SchedulePolicy; absent fields take their defaults. */
export const SchedulePolicy = z.object({
  catchup_window_seconds: z.int().min(1).max(10 * 31_536_000).optional(),
  overlap: Overlap.optional(),
  pause_on_failure: z.boolean().optional(),
});

const Instant = z.iso.datetime({ offset: true, local: true, message: "Input should be a valid datetime" });

/** The fields of a definition that PATCH may send, none required, none defaulted (only the supplied ones change). */
const DefinitionFields = {
  input: z.unknown().optional(),
  calendars: z.array(ScheduleCalendar).max(100).optional(),
  intervals: z.array(ScheduleInterval).max(100).optional(),
  cron_expressions: z.array(z.string().min(1).max(256)).max(100).optional(),
  skip: z.array(ScheduleCalendar).max(100).optional(),
  start_at: Instant.nullish(),
  end_at: Instant.nullish(),
  jitter: z.string().max(64).nullish(),
  time_zone_name: z.string().max(64).nullish(),
  policy: SchedulePolicy.optional(),
  max_executions: z.int().min(1).nullish(),
};

export const PartialScheduleDefinition = z.object(DefinitionFields);
export type PartialScheduleDefinition = z.infer<typeof PartialScheduleDefinition>;

export const ScheduleDefinition = z.object({ ...DefinitionFields, schedule_id: ScheduleId.nullish() });
export type ScheduleDefinitionIn = z.infer<typeof ScheduleDefinition>;

export const ScheduleCreateRequest = z.object({
  schedule: ScheduleDefinition,
  workflow_identifier: z.string().min(1).max(256).nullish(),
  workflow_registration_id: Uuid.nullish(),
  /** Deprecated alias of workflow_registration_id. */
  workflow_version_id: Uuid.nullish(),
  /** Deprecated alias of deployment_name. */
  workflow_task_queue: z.string().max(128).nullish(),
  deployment_name: z.string().max(128).nullish(),
  schedule_id: ScheduleId.nullish(),
});
export type ScheduleCreateRequest = z.infer<typeof ScheduleCreateRequest>;

export const ScheduleUpdateRequest = z.object({ schedule: PartialScheduleDefinition });
export type ScheduleUpdateRequest = z.infer<typeof ScheduleUpdateRequest>;

/** Pause and resume: the body is optional (the SDK may send none). */
export const ScheduleNoteRequest = z.object({ note: z.string().max(1024).nullish() }).nullish();
export const ScheduleTriggerRequest = z.object({ overlap: Overlap.nullish() }).nullish();

export const ScheduleListQuery = z.object({
  workflow_name: z.string().max(256).optional(),
  user_id: z.string().max(256).optional(),
  status: z.enum(["active", "paused"]).optional(),
  search: z.string().max(256).optional(),
  page_size: queryInt().min(1).max(1000).default(50),
  next_page_token: z.string().max(2048).optional(),
});
export type ScheduleListQuery = z.infer<typeof ScheduleListQuery>;

export const ScheduleIdOut = z.object({ schedule_id: z.string() });

const RangeOut = z.object({ start: z.number(), end: z.number(), step: z.number() });
const CalendarOut = z.object({
  second: z.array(RangeOut),
  minute: z.array(RangeOut),
  hour: z.array(RangeOut),
  day_of_month: z.array(RangeOut),
  month: z.array(RangeOut),
  year: z.array(RangeOut),
  day_of_week: z.array(RangeOut),
  comment: z.string().nullable(),
});

/** OA:ScheduleDefinitionOutput. */
export const ScheduleOut = z.object({
  input: z.unknown(),
  calendars: z.array(CalendarOut),
  intervals: z.array(z.object({ every: z.string(), offset: z.string().nullable() })),
  cron_expressions: z.array(z.string()),
  skip: z.array(CalendarOut),
  start_at: z.string().nullable(),
  end_at: z.string().nullable(),
  jitter: z.string().nullable(),
  time_zone_name: z.string().nullable(),
  policy: z.object({ catchup_window_seconds: z.number(), overlap: z.number(), pause_on_failure: z.boolean() }),
  schedule_id: z.string(),
  remaining_executions: z.number().nullable(),
  workflow_name: z.string(),
  deployment_name: z.string().nullable(),
  paused: z.boolean(),
  note: z.string().nullable(),
  future_executions: z.array(z.object({ scheduled_at: z.string() })),
  recent_executions: z.array(z.object({ scheduled_at: z.string(), started_at: z.string(), execution_id: z.string() })),
});
export type ScheduleOut = z.infer<typeof ScheduleOut>;

export const ScheduleListOut = z.object({ schedules: z.array(ScheduleOut), next_page_token: z.string().nullable() });
