import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { ApiError, PayloadTooLarge, Unprocessable, type ValidationIssue } from "../../domain/errors.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { evaluator, jittered } from "../../domain/workflows/schedules/evaluator.js";
import { LISTED_EXECUTIONS, MAX_BUFFERED, type ScheduleRecord } from "../../domain/workflows/schedules/records.js";
import {
  CALENDAR_DEFAULTS,
  CALENDAR_FIELDS,
  DEFAULT_POLICY,
  OVERLAP,
  timesIssues,
  type OverlapPolicy,
  type ScheduleCalendar,
  type SchedulePolicy,
  type ScheduleTimes,
} from "../../domain/workflows/schedules/spec.js";
import { logger } from "../../observability/logger.js";
import type {
  PartialScheduleDefinition,
  ScheduleCalendarIn,
  ScheduleCreateRequest,
  ScheduleListQuery,
  ScheduleOut,
  ScheduleUpdateRequest,
} from "../../schemas/schedules.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";
import { runStore } from "../../store/workflows/runs.js";
import { scheduleStore } from "../../store/workflows/schedules.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { cancel, MAX_INPUT_BYTES, startScheduled, terminate } from "./executions.js";
import { schemaIssues } from "./executions-schema.js";
import { armFire, disarmFire } from "./schedule-timers.js";
import { AmbiguousWorkflow, assertNotArchived, findWorkflow, getRegistration, routeExecution, WorkflowNotFound } from "./workflows.js";
import * as z from "zod";

/**
 * Workflow schedules (docs/workflows.md, "Schedules"; decision 0022): records in the `executions` table, our
 * evaluator (shared/domain/workflows/schedules/) for the times, one EventBridge Scheduler at() timer armed for
 * the next fire (the timer port's `schedules` channel), a fire handler that applies pause, the remaining count,
 * the catch-up window and the overlap policy, starts the execution and re-arms, and a sweeper for lost fires.
 * Every function takes the clock (`nowMs`) so tests drive it.
 */

export class ScheduleNotFound extends ApiError {
  constructor(id: string) {
    super(404, "not_found_error", `Schedule '${id}' not found`, "schedule_not_found", null, { familyCodes: { workflow: "WF_1201" } });
  }
}

export class ScheduleExists extends ApiError {
  constructor(id: string) {
    super(409, "conflict_error", `A schedule with id '${id}' already exists in this workspace`, "schedule_exists", null, { familyCodes: { workflow: "WF_1200" } });
  }
}

/** A bad schedule spec: the 422 list form, with the schedules' code WF_1200. */
export class ScheduleUnprocessable extends Unprocessable {
  constructor(detail: ValidationIssue[]) {
    super(detail);
    Object.assign(this, { familyCodes: { workflow: "WF_1200" } });
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

// ---- definitions: normalized as stored and echoed

function calendarOf(calendar: ScheduleCalendarIn): ScheduleCalendar {
  const out = { comment: calendar.comment ?? null } as ScheduleCalendar;
  for (const field of CALENDAR_FIELDS) {
    const ranges = calendar[field];
    out[field] = ranges?.length ? ranges.map((r) => ({ start: r.start, end: r.end, step: r.step })) : CALENDAR_DEFAULTS[field].map((r) => ({ ...r }));
  }
  return out;
}

/** An instant as stored: UTC ISO (a time without an offset is read as UTC). */
const instantOf = (text: string | null | undefined): string | null | undefined =>
  text === undefined ? undefined : text === null ? null : iso(Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`));

/** The times a (partial) definition supplies, normalized; fields it does not supply are absent. */
function suppliedTimes(definition: PartialScheduleDefinition): Partial<ScheduleTimes> {
  const out: Partial<ScheduleTimes> = {};
  if (definition.calendars !== undefined) out.calendars = definition.calendars.map(calendarOf);
  if (definition.skip !== undefined) out.skip = definition.skip.map(calendarOf);
  if (definition.intervals !== undefined) out.intervals = definition.intervals.map((i) => ({ every: i.every, offset: i.offset ?? null }));
  if (definition.cron_expressions !== undefined) out.cron_expressions = [...definition.cron_expressions];
  if (definition.start_at !== undefined) out.start_at = instantOf(definition.start_at)!;
  if (definition.end_at !== undefined) out.end_at = instantOf(definition.end_at)!;
  if (definition.jitter !== undefined) out.jitter = definition.jitter;
  if (definition.time_zone_name !== undefined) out.time_zone_name = definition.time_zone_name;
  return out;
}

const NO_TIMES: ScheduleTimes = { calendars: [], intervals: [], cron_expressions: [], skip: [], start_at: null, end_at: null, jitter: null, time_zone_name: null };

function policyOf(base: SchedulePolicy, supplied: PartialScheduleDefinition["policy"]): SchedulePolicy {
  return {
    catchup_window_seconds: supplied?.catchup_window_seconds ?? base.catchup_window_seconds,
    overlap: (supplied?.overlap ?? base.overlap) as OverlapPolicy,
    pause_on_failure: supplied?.pause_on_failure ?? base.pause_on_failure,
  };
}

function checkInput(input: unknown): Record<string, unknown> {
  if (input === undefined) throw new ScheduleUnprocessable([{ loc: ["body", "schedule", "input"], msg: "Field required", type: "missing" }]);
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new ScheduleUnprocessable([{ loc: ["body", "schedule", "input"], msg: "The input of a workflow execution is an object", type: "dict_type" }]);
  }
  const bytes = Buffer.byteLength(JSON.stringify(input));
  if (bytes > MAX_INPUT_BYTES) throw new PayloadTooLarge(`The input is ${bytes} bytes; an execution takes at most ${MAX_INPUT_BYTES}`, "input_too_large");
  return input as Record<string, unknown>;
}

function checkTimes(times: ScheduleTimes): void {
  const issues = timesIssues(times, ["body", "schedule"], { requireTimes: true });
  if (issues.length) throw new ScheduleUnprocessable(issues);
}

// ---- the next fire

/** The next nominal fire strictly after `afterMs` and when it fires (with its jitter); none when exhausted or out of times. */
export function planNext(record: Pick<ScheduleRecord, "workspace" | "scheduleId" | "times" | "remaining">, afterMs: number): { nextAt: string | null; fireAt: string | null } {
  if (record.remaining === 0) return { nextAt: null, fireAt: null };
  const e = evaluator(record.times);
  const [first, second] = e.next(afterMs, 2);
  if (first === undefined) return { nextAt: null, fireAt: null };
  return { nextAt: iso(first), fireAt: iso(jittered(`${record.workspace}/${record.scheduleId}`, first, second ?? null, e.jitterMs)) };
}

/** Arms the record's fire, or, paused or without one, makes sure none is armed (`previousFireAt`: the one that may be). */
async function arm(record: ScheduleRecord, previousFireAt: string | null): Promise<void> {
  const armed = !record.paused && record.fireAt !== null;
  if (previousFireAt && (!armed || previousFireAt !== record.fireAt)) await disarmFire(record, previousFireAt);
  if (armed) await armFire(record, record.fireAt!);
}

// ---- the API

export function toScheduleOut(record: ScheduleRecord, nowMs: number): ScheduleOut {
  let future: number[] = [];
  const limit = Math.min(LISTED_EXECUTIONS, record.remaining ?? LISTED_EXECUTIONS);
  if (limit > 0) {
    const e = evaluator(record.times);
    if (record.paused) future = e.next(nowMs, limit);
    else if (record.nextAt) future = [Date.parse(record.nextAt), ...e.next(Date.parse(record.nextAt), limit - 1)];
  }
  return {
    input: record.input,
    ...record.times,
    // The evaluator reads no zone as UTC; the answer says so (the docs' "default UTC, filled in").
    time_zone_name: record.times.time_zone_name ?? "UTC",
    policy: record.policy,
    schedule_id: record.scheduleId,
    remaining_executions: record.remaining,
    workflow_name: record.workflowName,
    deployment_name: record.deploymentName,
    paused: record.paused,
    note: record.note,
    future_executions: future.map((t) => ({ scheduled_at: iso(t) })),
    recent_executions: record.recent.slice(-LISTED_EXECUTIONS),
  };
}

async function existing(caller: Pick<Caller, "workspace">, scheduleId: string): Promise<ScheduleRecord> {
  const record = await scheduleStore.get(caller.workspace, scheduleId);
  if (!record) throw new ScheduleNotFound(scheduleId);
  return record;
}

/** POST /v1/workflows/schedules → the schedule's id (201). */
export async function create(caller: Pick<Caller, "workspace" | "principal">, request: ScheduleCreateRequest, nowMs = Date.now()): Promise<{ schedule_id: string }> {
  const definition = request.schedule;
  const input = checkInput(definition.input);
  const times: ScheduleTimes = { ...NO_TIMES, ...suppliedTimes(definition) };
  checkTimes(times);
  const registrationId = request.workflow_registration_id ?? request.workflow_version_id ?? null;
  const deploymentName = request.deployment_name ?? request.workflow_task_queue ?? null;
  if (!registrationId && !request.workflow_identifier) {
    throw new ScheduleUnprocessable([{ loc: ["body", "workflow_identifier"], msg: "Name the workflow: workflow_identifier or workflow_registration_id", type: "missing" }]);
  }
  // The workflow, and the registration an execution would run on now, whose input_schema the input must fit.
  let workflow;
  let registration;
  if (registrationId) ({ workflow, registration } = await getRegistration(caller, registrationId));
  else {
    workflow = await findWorkflow(caller, request.workflow_identifier!);
    try {
      registration = await routeExecution(caller, workflow, deploymentName);
    } catch (error) {
      // Two live deployments and none named: each fire routes (and may be refused) then.
      if (!(error instanceof AmbiguousWorkflow)) throw error;
    }
  }
  // A schedule of an archived workflow would fire nothing (decision 63).
  assertNotArchived(workflow);
  if (registration) {
    const issues = schemaIssues(registration.definition.input_schema, input, ["body", "schedule", "input"]);
    if (issues.length) throw new ScheduleUnprocessable(issues);
  }
  const scheduleId = request.schedule_id ?? definition.schedule_id ?? randomUUID();
  const now = iso(nowMs);
  const record: ScheduleRecord = {
    workspace: caller.workspace,
    scheduleId,
    workflowId: workflow.id,
    workflowName: workflow.name,
    registrationId,
    deploymentName: deploymentName ?? (registrationId ? registration!.deploymentName : null),
    userId: caller.principal,
    input,
    times,
    policy: policyOf(DEFAULT_POLICY, definition.policy),
    maxExecutions: definition.max_executions ?? null,
    remaining: definition.max_executions ?? null,
    paused: false,
    note: null,
    nextAt: null,
    fireAt: null,
    recent: [],
    buffered: [],
    createdAt: now,
    updatedAt: now,
  };
  Object.assign(record, planNext(record, nowMs));
  if (!(await scheduleStore.create(record))) throw new ScheduleExists(scheduleId);
  await arm(record, null);
  return { schedule_id: scheduleId };
}

export async function get(caller: Pick<Caller, "workspace">, scheduleId: string, nowMs = Date.now()): Promise<ScheduleOut> {
  return toScheduleOut(await existing(caller, scheduleId), nowMs);
}

const ListCursor = z.object({ after: z.string() });

/** GET /v1/workflows/schedules: by id, filtered as it pages; `next_page_token` is where the page ended. */
export async function list(caller: Pick<Caller, "workspace">, query: ScheduleListQuery, nowMs = Date.now()): Promise<{ schedules: ScheduleOut[]; next_page_token: string | null }> {
  let after = query.next_page_token ? readCursor(query.next_page_token, ListCursor, "next_page_token").after : null;
  const search = query.search?.toLowerCase();
  const keep = (r: ScheduleRecord) =>
    (!query.workflow_name || r.workflowName === query.workflow_name) &&
    (!query.user_id || r.userId === query.user_id) &&
    (!query.status || (query.status === "paused") === r.paused) &&
    (!search || r.scheduleId.toLowerCase().includes(search) || r.workflowName.toLowerCase().includes(search));
  const out: ScheduleRecord[] = [];
  let more = true;
  while (out.length < query.page_size && more) {
    const page = await scheduleStore.page(caller.workspace, after, Math.min(1000, Math.max(100, query.page_size)));
    more = page.more;
    for (const record of page.items) {
      after = record.scheduleId;
      if (!keep(record)) continue;
      out.push(record);
      if (out.length === query.page_size) {
        more = more || page.items.indexOf(record) < page.items.length - 1;
        break;
      }
    }
  }
  return {
    schedules: out.map((r) => toScheduleOut(r, nowMs)),
    next_page_token: more && out.length ? encodeCursor({ after: out[out.length - 1]!.scheduleId }) : null,
  };
}

/** PATCH: only the supplied fields change; the next fire is recomputed from now (and re-armed). */
export async function update(caller: Pick<Caller, "workspace">, scheduleId: string, request: ScheduleUpdateRequest, nowMs = Date.now()): Promise<{ schedule_id: string }> {
  const record = await existing(caller, scheduleId);
  const supplied = request.schedule;
  const input = supplied.input !== undefined ? checkInput(supplied.input) : record.input;
  const times: ScheduleTimes = { ...record.times, ...suppliedTimes(supplied) };
  checkTimes(times);
  const changed: ScheduleRecord = {
    ...record,
    input,
    times,
    policy: policyOf(record.policy, supplied.policy),
    ...(supplied.max_executions !== undefined ? { maxExecutions: supplied.max_executions, remaining: supplied.max_executions } : {}),
    updatedAt: iso(nowMs),
  };
  Object.assign(changed, planNext(changed, nowMs));
  const fields: Partial<ScheduleRecord> = { input, times, policy: changed.policy, nextAt: changed.nextAt, fireAt: changed.fireAt, updatedAt: changed.updatedAt };
  if (supplied.max_executions !== undefined) Object.assign(fields, { maxExecutions: changed.maxExecutions, remaining: changed.remaining });
  if (!(await scheduleStore.change(changed, fields))) throw new ScheduleNotFound(scheduleId);
  await arm(changed, record.fireAt);
  return { schedule_id: scheduleId };
}

/** DELETE: the record and its armed fire; executions it started go on. */
export async function remove(caller: Pick<Caller, "workspace">, scheduleId: string): Promise<void> {
  const record = await existing(caller, scheduleId);
  if (!(await scheduleStore.remove(caller.workspace, scheduleId))) throw new ScheduleNotFound(scheduleId);
  await disarmFire(record, record.fireAt);
}

/** Pause: no automatic fire until resumed (the armed one is disarmed); `note` says why. */
export async function pause(caller: Pick<Caller, "workspace">, scheduleId: string, note: string | null | undefined, nowMs = Date.now()): Promise<void> {
  const record = await existing(caller, scheduleId);
  const paused: ScheduleRecord = { ...record, paused: true, note: note ?? null, updatedAt: iso(nowMs) };
  if (!(await scheduleStore.change(paused, { paused: true, note: paused.note, updatedAt: paused.updatedAt }))) throw new ScheduleNotFound(scheduleId);
  await arm(paused, record.fireAt);
}

/** Resume: fires again from the next time after now (what came due while paused does not run). */
export async function resume(caller: Pick<Caller, "workspace">, scheduleId: string, note: string | null | undefined, nowMs = Date.now()): Promise<void> {
  const record = await existing(caller, scheduleId);
  const resumed: ScheduleRecord = { ...record, paused: false, note: note ?? null, updatedAt: iso(nowMs) };
  Object.assign(resumed, planNext(resumed, nowMs));
  const fields = { paused: false, note: resumed.note, nextAt: resumed.nextAt, fireAt: resumed.fireAt, updatedAt: resumed.updatedAt };
  if (!(await scheduleStore.change(resumed, fields))) throw new ScheduleNotFound(scheduleId);
  await arm(resumed, record.paused ? null : record.fireAt);
}

/** Trigger: one fire now, under the overlap policy (or `overlap`); not counted against remaining_executions. */
export async function trigger(caller: Pick<Caller, "workspace">, scheduleId: string, overlap: OverlapPolicy | null | undefined, nowMs = Date.now()): Promise<FireOutcome> {
  const record = await existing(caller, scheduleId);
  // Asked for now, by a caller: an archived workflow is refused (409) rather than a 204 that started nothing.
  const workflow = await workflowRegistry.getWorkflow(record.workspace, record.workflowId);
  if (workflow) assertNotArchived(workflow);
  const outcome = emptyOutcome();
  await act(record, iso(nowMs), overlap ?? record.policy.overlap, false, outcome);
  return outcome;
}

// ---- firing

export interface FireOutcome {
  /** Execution ids started. */
  started: string[];
  /** Nominal times held back by the overlap policy. */
  buffered: string[];
  /** Nominal times not run, and why. */
  skipped: { scheduledAt: string; reason: "overlap" | "catchup" | "exhausted" | "buffer-full" | "start-failed" }[];
}
const emptyOutcome = (): FireOutcome => ({ started: [], buffered: [], skipped: [] });

/** Executions this schedule started that are still open (its recent ones: under every policy but allow-all, at most one). */
async function openExecutions(record: ScheduleRecord): Promise<string[]> {
  const open: string[] = [];
  for (const entry of record.recent) {
    const execution = await runStore.getExecution(record.workspace, entry.execution_id);
    if (execution && !isClosed(execution.status)) open.push(entry.execution_id);
  }
  return open;
}

/** `nightly-20300101T090000Z`: one execution id per schedule and nominal time (a trigger's has a random tail). */
const executionIdOf = (scheduleId: string, nominal: string, automatic: boolean) =>
  `${scheduleId}-${nominal.replace(/[-:]|\.\d+/g, "")}${automatic ? "" : `-${randomUUID().slice(0, 8)}`}`;

async function start(record: ScheduleRecord, nominal: string, automatic: boolean, outcome: FireOutcome): Promise<boolean> {
  const executionId = executionIdOf(record.scheduleId, nominal, automatic);
  try {
    const execution = await startScheduled(
      { workspace: record.workspace, principal: record.userId ?? "schedule" },
      record,
      { input: record.input as Record<string, unknown>, executionId, scheduleId: record.scheduleId },
    );
    await scheduleStore.addRecent(record.workspace, record.scheduleId, { scheduled_at: nominal, started_at: execution.start_time, execution_id: executionId });
    outcome.started.push(executionId);
    return true;
  } catch (error) {
    // Routing refused (the workflow or its deployment gone, two live deployments), the input no longer fits: logged, the schedule goes on.
    logger.warn("schedule fire did not start an execution", { scheduleId: record.scheduleId, error: error as Error });
    outcome.skipped.push({ scheduledAt: nominal, reason: "start-failed" });
    return false;
  }
}

/** One fire of nominal time `nominal` under `overlap`: start, hold back, or skip; an automatic one is counted when it starts or is held. */
async function act(record: ScheduleRecord, nominal: string, overlap: OverlapPolicy, automatic: boolean, outcome: FireOutcome): Promise<void> {
  const limited = automatic && record.remaining !== null;
  const count = async () => {
    if (!limited) return true;
    if ((await scheduleStore.countFire(record.workspace, record.scheduleId)) !== undefined) return true;
    outcome.skipped.push({ scheduledAt: nominal, reason: "exhausted" });
    return false;
  };
  const refund = () => (limited ? scheduleStore.refund(record.workspace, record.scheduleId) : Promise.resolve());
  const open = overlap === OVERLAP.ALLOW_ALL ? [] : await openExecutions(record);
  if (open.length) {
    if (overlap === OVERLAP.SKIP) {
      outcome.skipped.push({ scheduledAt: nominal, reason: "overlap" });
      return;
    }
    if (overlap === OVERLAP.BUFFER_ONE || overlap === OVERLAP.BUFFER_ALL) {
      if (!(await count())) return;
      if (await scheduleStore.buffer(record.workspace, record.scheduleId, nominal, overlap === OVERLAP.BUFFER_ONE ? 1 : MAX_BUFFERED)) outcome.buffered.push(nominal);
      else {
        await refund();
        outcome.skipped.push({ scheduledAt: nominal, reason: "buffer-full" });
      }
      return;
    }
    const stop = overlap === OVERLAP.CANCEL_OTHER ? cancel : terminate;
    for (const executionId of open) {
      await stop({ workspace: record.workspace }, executionId).catch((error: unknown) => {
        // Closed meanwhile: nothing to stop.
        if (!(error instanceof ApiError && error.status === 409)) throw error;
      });
    }
  }
  if (!(await count())) return;
  if (!(await start(record, nominal, automatic, outcome))) await refund();
}

/**
 * The fire handler (the schedules channel's target; the sweeper re-arms lost ones): a buffered fire whose
 * turn came starts; a due nominal fire is taken (one taker however many deliveries race), checked against
 * the catch-up window and acted on; then the next fire is armed. Fires missed while nothing ran collapse
 * into one: the next one is planned after now.
 */
export async function fire(workspace: string, scheduleId: string, nowMs = Date.now()): Promise<FireOutcome> {
  const outcome = emptyOutcome();
  let record = await scheduleStore.get(workspace, scheduleId);
  if (!record) return outcome;
  const armedAt = record.fireAt;
  if (!record.paused) {
    await drain(record, outcome);
    record = (await scheduleStore.get(workspace, scheduleId)) ?? record;
  }
  if (!record.paused && record.nextAt && Date.parse(record.nextAt) <= nowMs && record.remaining !== 0) {
    const nominal = record.nextAt;
    const next = planNext(record, Math.max(Date.parse(nominal), nowMs));
    if (await scheduleStore.claim(record, next)) {
      const late = nowMs - Date.parse(record.fireAt ?? nominal);
      if (late > record.policy.catchup_window_seconds * 1000) outcome.skipped.push({ scheduledAt: nominal, reason: "catchup" });
      else await act({ ...record, ...next }, nominal, record.policy.overlap, true, outcome);
    }
  }
  const current = await scheduleStore.get(workspace, scheduleId);
  if (!current) return outcome;
  // Exhausted: no more automatic fires (and nothing listed as future).
  const settled = current.remaining === 0 ? { ...current, nextAt: null, fireAt: null } : current;
  // Written again so the sweeper's index says when the armed fire is due (a drain marked it due now).
  await scheduleStore.change(settled, current.remaining === 0 ? { nextAt: null, fireAt: null } : {});
  await arm(settled, current.fireAt !== settled.fireAt ? current.fireAt : null);
  return outcome;
}

/** Starts the oldest buffered fire when none of the schedule's executions is open (one taker). */
async function drain(record: ScheduleRecord, outcome: FireOutcome): Promise<void> {
  const nominal = record.buffered[0];
  if (nominal === undefined || (await openExecutions(record)).length) return;
  if (!(await scheduleStore.unbuffer(record.workspace, record.scheduleId, nominal))) return;
  // Counted when it was buffered.
  await start(record, nominal, true, outcome);
}

/** How late an armed fire may be before the sweeper re-arms it (Scheduler fires up to about two minutes late). */
export const SWEEP_GRACE_MS = 3 * 60_000;

/** The sweeper: every schedule whose armed time is more than SWEEP_GRACE_MS past is armed again, now. */
export async function sweep(nowMs = Date.now()): Promise<{ rearmed: number }> {
  const due = await scheduleStore.dueBefore(iso(nowMs - SWEEP_GRACE_MS));
  let rearmed = 0;
  for (const { workspace, scheduleId } of due) {
    try {
      await armFire({ workspace, scheduleId }, iso(nowMs));
      rearmed++;
    } catch (error) {
      logger.error("schedule fire not re-armed", { scheduleId, error: error as Error });
    }
  }
  if (rearmed) logger.info("schedule fires re-armed", { rearmed });
  return { rearmed };
}
