/**
 * The local EventBridge Scheduler: an HTTP server speaking the service's REST-JSON protocol as
 * @aws-sdk/client-scheduler sends it (schedules and schedule groups), which fires one-time `at()`
 * schedules in this process by calling the handler module their target's function ARN names
 * (docs/engine.md, "Timers"). Schedules are kept in a JSON file when one is given, so timers armed
 * before a restart of `npm start` still fire after it.
 *
 * Only `at()` schedules are accepted (rate() and cron() are refused with a ValidationException), in UTC;
 * a schedule whose time is past when it is created, or when the stand-in starts, fires at once. A target
 * that fails is retried a few times with backoff, then dropped (and logged), as Scheduler does once its
 * retry policy is spent.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { dirname, join, resolve } from "node:path";
import type { Context } from "aws-lambda";
import { handlerModule } from "../../functions/routes.js";
import { lambdaContext as localLambdaContext, LocalFunctions } from "./stepfunctions/functions.js";

const LOCAL_REGION = "us-east-1";
const LOCAL_ACCOUNT = "000000000000";
const ROOT = resolve(import.meta.dirname, "../..");

/** A Lambda function's ARN locally, as CDK would give it to whoever targets the function. */
export const localFunctionArn = (name: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${name}`;

/** What the timer port (shared/engine/timers.ts) needs locally: the group, the timer handler and the role Scheduler assumes. */
export const LOCAL_TIMERS = {
  group: "local-timers",
  handler: "engine/workflow-timer",
  functionArn: localFunctionArn("workflow-timer"),
  roleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/local-scheduler`,
} as const;

/** The same for workflow schedules' fires (the port's `schedules` channel): their group, the fire handler, its role. */
export const LOCAL_SCHEDULES = {
  group: "local-schedules",
  handler: "engine/workflow-schedule-fire",
  functionArn: localFunctionArn("workflow-schedule-fire"),
  roleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/local-schedules`,
} as const;

/** The default group always exists (and cannot be deleted), as in the service. */
const DEFAULT_GROUP = "default";
/** Waits before each retry of a failed target; then the event is dropped. */
const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000];
/** Node timers hold at most 2^31-1 ms; a later schedule is looked at again then. */
const MAX_TIMER_MS = 2_147_483_647;
const NAME = /^[0-9a-zA-Z_.-]{1,64}$/;
const AT = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/;

export interface LocalSchedulerOptions {
  /** Function ARN → handler module (`functions/<handler>.ts`); added to the timer handler's (LOCAL_TIMERS) and the schedule fire handler's (LOCAL_SCHEDULES). */
  functions?: Record<string, string>;
  /** Where a handler's module is; default functions/<handler>.ts in this project. */
  taskModule?: (handler: string) => string;
  /** Schedule groups that exist from the start, as CDK deploys them; default the timers' and the schedules' groups. `default` always exists. */
  groups?: string[];
  /** A JSON file holding the schedules across restarts, written on every change; default in memory only. */
  stateFile?: string;
  /**
   * The clock, in epoch milliseconds. Default Date.now, and schedules fire on their own when due. With a
   * clock of the caller's (a test's), due schedules fire on tick(), and at once when they are created or
   * the stand-in starts already due; no timer of the stand-in's own waits for the clock.
   */
  now?: () => number;
  /** Whether due schedules fire on timers of the stand-in's own; default only with the real clock (no `now`). */
  ownTimers?: boolean;
  /** Waits before each retry of a failing target (default 1 s, 5 s, 30 s, 2 min), capped by the target's RetryPolicy.MaximumRetryAttempts. */
  retryDelaysMs?: number[];
  /** Where failed invocations are reported (Lambda would log them); default console.error. */
  log?: (message: string) => void;
}

export interface LocalScheduler {
  endpoint: string;
  /** AWS_ENDPOINT_URL_SCHEDULER and the timer port's settings, as CDK gives them to a function. */
  env: Record<string, string>;
  /** Fires every schedule (and retry) due by the clock; resolves when their handlers have returned. */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

type Json = Record<string, any>;

/** A schedule as stored: every field the SDK sent, plus what the stand-in keeps to fire it. */
interface Schedule {
  Name: string;
  GroupName: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  FlexibleTimeWindow: Json;
  Target: Json;
  StartDate?: number;
  EndDate?: number;
  Description?: string;
  State: "ENABLED" | "DISABLED";
  KmsKeyArn?: string;
  ActionAfterCompletion: "NONE" | "DELETE";
  CreationDate: number;
  LastModificationDate: number;
  /** Epoch ms of the at() time. */
  dueAt: number;
  /** Changes on every update: a firing of an older version does not delete a newer one. */
  version: string;
  /** The next attempt after a failure, and how many failed. */
  retryAt?: number;
  failures?: number;
  /** A one-time schedule that has fired and is kept (ActionAfterCompletion NONE) does not fire again. */
  completed?: boolean;
}

interface Group {
  Name: string;
  CreationDate: number;
  LastModificationDate: number;
}

interface State {
  schedules: Schedule[];
  groups: Group[];
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    name: string,
    message: string,
  ) {
    super(message);
    this.name = name;
  }
}
const notFound = (message: string) => new ApiError(404, "ResourceNotFoundException", message);
const conflict = (message: string) => new ApiError(409, "ConflictException", message);
const invalid = (message: string) => new ApiError(400, "ValidationException", message);

export async function startScheduler(options: LocalSchedulerOptions = {}): Promise<LocalScheduler> {
  const functions: Record<string, string> = { [LOCAL_TIMERS.functionArn]: LOCAL_TIMERS.handler, [LOCAL_SCHEDULES.functionArn]: LOCAL_SCHEDULES.handler, ...options.functions };
  const taskModule = options.taskModule ?? ((handler: string) => join(ROOT, handlerModule(handler)));
  const retryDelays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const ownTimers = options.ownTimers ?? !options.now;
  const now = options.now ?? Date.now;
  let closing = false;
  const log = (message: string) => closing || (options.log ?? console.error)(message);

  const schedules = new Map<string, Schedule>();
  const groups = new Map<string, Group>();
  const keyOf = (group: string, name: string) => `${group}/${name}`;
  const scheduleArn = (s: Pick<Schedule, "GroupName" | "Name">) => `arn:aws:scheduler:${LOCAL_REGION}:${LOCAL_ACCOUNT}:schedule/${s.GroupName}/${s.Name}`;
  const groupArn = (name: string) => `arn:aws:scheduler:${LOCAL_REGION}:${LOCAL_ACCOUNT}:schedule-group/${name}`;

  // ---- state and its file

  if (options.stateFile && existsSync(options.stateFile)) {
    const saved = JSON.parse(readFileSync(options.stateFile, "utf8")) as State;
    for (const group of saved.groups ?? []) groups.set(group.Name, group);
    for (const schedule of saved.schedules ?? []) schedules.set(keyOf(schedule.GroupName, schedule.Name), schedule);
  }
  for (const name of [DEFAULT_GROUP, ...(options.groups ?? [LOCAL_TIMERS.group, LOCAL_SCHEDULES.group])]) {
    if (!groups.has(name)) groups.set(name, { Name: name, CreationDate: now(), LastModificationDate: now() });
  }

  function save(): void {
    if (!options.stateFile) return;
    const state: State = { schedules: [...schedules.values()], groups: [...groups.values()] };
    mkdirSync(dirname(options.stateFile), { recursive: true });
    // Written aside and renamed: a stop in the middle never leaves half a file.
    const temporary = `${options.stateFile}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(state, null, 2));
    renameSync(temporary, options.stateFile);
  }
  save();

  // ---- firing

  // The same in-process Lambda runtime as the Step Functions stand-in's (a missing module is not cached:
  // the engine's timer handler written later loads on a later attempt).
  const functionModules = new LocalFunctions(taskModule, log);

  const nextFire = (s: Schedule): number | undefined => (s.State !== "ENABLED" || s.completed ? undefined : (s.retryAt ?? s.dueAt));
  const firing = new Set<string>();
  const running = new Set<Promise<void>>();

  async function invoke(s: Schedule): Promise<void> {
    const functionArn = String(s.Target.Arn);
    const handlerName = functions[functionArn];
    if (!handlerName) throw new Error(`No local function has the ARN ${functionArn} (known: ${Object.keys(functions).join(", ")})`);
    const handler = await functionModules.load(handlerName);
    const event: unknown = s.Target.Input === undefined ? {} : JSON.parse(String(s.Target.Input));
    await handler(event, lambdaContext(functionArn));
  }

  async function fire(key: string): Promise<void> {
    const s = schedules.get(key)!;
    const version = s.version;
    let failure: unknown;
    try {
      await invoke(s);
    } catch (error) {
      failure = error;
    }
    // Stopped meanwhile: the schedule is left as it was, and fires again when the stand-in starts from its file.
    if (closing) return;
    const current = schedules.get(key);
    // Updated or deleted while its target ran: the newer version (or nothing) is what is left to do.
    if (!current || current.version !== version) return;
    if (failure !== undefined) {
      const failures = (current.failures ?? 0) + 1;
      const allowed = Math.min(retryDelays.length, Number(current.Target.RetryPolicy?.MaximumRetryAttempts ?? retryDelays.length));
      const e = failure as Error;
      if (failures <= allowed) {
        const delay = retryDelays[failures - 1]!;
        log(`local scheduler: ${key} failed (${e?.name}: ${e?.message ?? e}); retry ${failures} of ${allowed} in ${delay} ms`);
        Object.assign(current, { failures, retryAt: now() + delay });
        save();
        return;
      }
      log(`local scheduler: ${key} failed (${e?.name}: ${e?.message ?? e}); retries spent, the event is dropped`);
    }
    if (current.ActionAfterCompletion === "DELETE") schedules.delete(key);
    else Object.assign(current, { completed: true, retryAt: undefined, failures: undefined });
    save();
  }

  async function tick(): Promise<void> {
    const t = now();
    const due = [...schedules.entries()].filter(([key, s]) => !firing.has(key) && (nextFire(s) ?? Infinity) <= t).map(([key]) => key);
    for (const key of due) {
      firing.add(key);
      const run = fire(key).finally(() => {
        firing.delete(key);
        running.delete(run);
        wake();
      });
      running.add(run);
    }
    // Also waits for firings a timer of its own started before this call.
    await Promise.all([...running]);
  }

  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  /** Looks for the next schedule to fire: at once when one is due; otherwise (with its own timers) on a timer until the earliest. */
  function wake(): void {
    if (closing) return;
    clearTimeout(timer);
    timer = undefined;
    const times = [...schedules.entries()].filter(([key]) => !firing.has(key)).map(([, s]) => nextFire(s) ?? Infinity);
    const earliest = Math.min(Infinity, ...times);
    if (earliest === Infinity) return;
    const delay = earliest - now();
    if (delay <= 0) {
      immediate ??= setImmediate(() => {
        immediate = undefined;
        void tick();
      });
    } else if (ownTimers) {
      timer = setTimeout(() => void tick().then(wake), Math.min(delay, MAX_TIMER_MS));
      timer.unref();
    }
  }

  // ---- operations

  function group(name: string | undefined): Group {
    const g = groups.get(name ?? DEFAULT_GROUP);
    if (!g) throw notFound(`Schedule group ${name} does not exist.`);
    return g;
  }

  function existing(name: string, groupName: string | undefined): Schedule {
    const g = group(groupName);
    const s = schedules.get(keyOf(g.Name, name));
    if (!s) throw notFound(`Schedule ${name} does not exist.`);
    return s;
  }

  /** The schedule a CreateSchedule or UpdateSchedule body describes, checked as the service checks it. */
  function parseSchedule(name: string, body: Json, createdAt?: number): Schedule {
    if (!NAME.test(name)) throw invalid(`Schedule name ${name} is invalid: 1 to 64 of [0-9a-zA-Z_.-]`);
    const g = group(body.GroupName);
    const expression = body.ScheduleExpression;
    if (typeof expression !== "string" || !expression) throw invalid("ScheduleExpression is required.");
    if (/^(rate|cron)\(/.test(expression)) {
      throw invalid(`The local Scheduler fires only one-time at() schedules; ${expression} is not supported (docs/engine.md, "Timers").`);
    }
    const at = AT.exec(expression);
    const dueAt = at ? Date.UTC(+at[1]!, +at[2]! - 1, +at[3]!, +at[4]!, +at[5]!, +at[6]!) : NaN;
    if (!at || Number.isNaN(dueAt) || new Date(dueAt).toISOString().slice(0, 19) !== expression.slice(3, 22)) {
      throw invalid(`Invalid Schedule Expression ${expression}.`);
    }
    const timezone = body.ScheduleExpressionTimezone;
    if (timezone !== undefined && timezone !== "UTC") throw invalid(`The local Scheduler evaluates at() in UTC only, not in ${timezone}.`);
    const window = body.FlexibleTimeWindow as Json | undefined;
    if (!window || !["OFF", "FLEXIBLE"].includes(window.Mode)) throw invalid("FlexibleTimeWindow.Mode must be OFF or FLEXIBLE.");
    if (window.Mode === "FLEXIBLE" && !(Number.isInteger(window.MaximumWindowInMinutes) && window.MaximumWindowInMinutes >= 1 && window.MaximumWindowInMinutes <= 1440)) {
      throw invalid("FlexibleTimeWindow.MaximumWindowInMinutes must be 1 to 1440 when Mode is FLEXIBLE.");
    }
    if (window.Mode === "OFF" && window.MaximumWindowInMinutes !== undefined) throw invalid("MaximumWindowInMinutes must not be set when Mode is OFF.");
    const target = body.Target as Json | undefined;
    if (!target || typeof target.Arn !== "string" || !target.Arn || typeof target.RoleArn !== "string" || !target.RoleArn) {
      throw invalid("Target.Arn and Target.RoleArn are required.");
    }
    const retry = (target.RetryPolicy ?? {}) as Json;
    if (retry.MaximumRetryAttempts !== undefined && !(Number.isInteger(retry.MaximumRetryAttempts) && retry.MaximumRetryAttempts >= 0 && retry.MaximumRetryAttempts <= 185)) {
      throw invalid("RetryPolicy.MaximumRetryAttempts must be 0 to 185.");
    }
    if (retry.MaximumEventAgeInSeconds !== undefined && !(Number.isInteger(retry.MaximumEventAgeInSeconds) && retry.MaximumEventAgeInSeconds >= 60 && retry.MaximumEventAgeInSeconds <= 86_400)) {
      throw invalid("RetryPolicy.MaximumEventAgeInSeconds must be 60 to 86400.");
    }
    const state = body.State ?? "ENABLED";
    if (!["ENABLED", "DISABLED"].includes(state)) throw invalid("State must be ENABLED or DISABLED.");
    const after = body.ActionAfterCompletion ?? "NONE";
    if (!["NONE", "DELETE"].includes(after)) throw invalid("ActionAfterCompletion must be NONE or DELETE.");
    const t = now();
    return {
      Name: name,
      GroupName: g.Name,
      ScheduleExpression: expression,
      ...(timezone !== undefined ? { ScheduleExpressionTimezone: timezone } : {}),
      FlexibleTimeWindow: window,
      Target: target,
      ...(body.StartDate !== undefined ? { StartDate: Number(body.StartDate) * 1000 } : {}),
      ...(body.EndDate !== undefined ? { EndDate: Number(body.EndDate) * 1000 } : {}),
      ...(body.Description !== undefined ? { Description: String(body.Description) } : {}),
      ...(body.KmsKeyArn !== undefined ? { KmsKeyArn: String(body.KmsKeyArn) } : {}),
      State: state,
      ActionAfterCompletion: after,
      CreationDate: createdAt ?? t,
      LastModificationDate: t,
      dueAt,
      version: randomUUID(),
    };
  }

  const describe = (s: Schedule): Json => ({
    Arn: scheduleArn(s),
    Name: s.Name,
    GroupName: s.GroupName,
    ScheduleExpression: s.ScheduleExpression,
    ...(s.ScheduleExpressionTimezone !== undefined ? { ScheduleExpressionTimezone: s.ScheduleExpressionTimezone } : {}),
    ...(s.StartDate !== undefined ? { StartDate: seconds(s.StartDate) } : {}),
    ...(s.EndDate !== undefined ? { EndDate: seconds(s.EndDate) } : {}),
    ...(s.Description !== undefined ? { Description: s.Description } : {}),
    ...(s.KmsKeyArn !== undefined ? { KmsKeyArn: s.KmsKeyArn } : {}),
    State: s.State,
    CreationDate: seconds(s.CreationDate),
    LastModificationDate: seconds(s.LastModificationDate),
    Target: s.Target,
    FlexibleTimeWindow: s.FlexibleTimeWindow,
    ActionAfterCompletion: s.ActionAfterCompletion,
  });

  const describeGroup = (g: Group): Json => ({
    Arn: groupArn(g.Name),
    Name: g.Name,
    State: "ACTIVE",
    CreationDate: seconds(g.CreationDate),
    LastModificationDate: seconds(g.LastModificationDate),
  });

  /** NextToken is an offset into the sorted listing. */
  function page<T>(all: T[], query: URLSearchParams): { items: T[]; NextToken?: string } {
    const from = query.get("NextToken") ? Number(Buffer.from(query.get("NextToken")!, "base64url").toString()) : 0;
    if (!Number.isInteger(from) || from < 0) throw invalid("Invalid NextToken.");
    const size = Math.min(Number(query.get("MaxResults")) || 100, 100);
    return {
      items: all.slice(from, from + size),
      ...(from + size < all.length ? { NextToken: Buffer.from(String(from + size)).toString("base64url") } : {}),
    };
  }

  type Operation = (name: string, body: Json, query: URLSearchParams) => Json;
  const routes: Record<string, Record<string, Operation>> = {
    schedule: {
      POST(name, body) {
        const s = parseSchedule(name, body);
        const key = keyOf(s.GroupName, name);
        if (schedules.has(key)) throw conflict(`Schedule ${name} already exists.`);
        schedules.set(key, s);
        save();
        wake();
        return { ScheduleArn: scheduleArn(s) };
      },
      PUT(name, body) {
        const old = existing(name, body.GroupName);
        const s = parseSchedule(name, body, old.CreationDate);
        schedules.set(keyOf(s.GroupName, name), s);
        save();
        wake();
        return { ScheduleArn: scheduleArn(s) };
      },
      GET(name, _body, query) {
        return describe(existing(name, query.get("groupName") ?? undefined));
      },
      DELETE(name, _body, query) {
        const s = existing(name, query.get("groupName") ?? undefined);
        schedules.delete(keyOf(s.GroupName, s.Name));
        save();
        wake();
        return {};
      },
    },
    schedules: {
      GET(_name, _body, query) {
        const groupName = query.get("ScheduleGroup");
        if (groupName) group(groupName);
        const prefix = query.get("NamePrefix") ?? "";
        const state = query.get("State");
        const all = [...schedules.values()]
          .filter((s) => (!groupName || s.GroupName === groupName) && s.Name.startsWith(prefix) && (!state || s.State === state))
          .sort((a, b) => keyOf(a.GroupName, a.Name).localeCompare(keyOf(b.GroupName, b.Name)));
        const { items, NextToken } = page(all, query);
        return {
          Schedules: items.map((s) => ({
            Arn: scheduleArn(s),
            Name: s.Name,
            GroupName: s.GroupName,
            State: s.State,
            CreationDate: seconds(s.CreationDate),
            LastModificationDate: seconds(s.LastModificationDate),
            Target: { Arn: s.Target.Arn },
          })),
          ...(NextToken ? { NextToken } : {}),
        };
      },
    },
    group: {
      POST(name) {
        if (!NAME.test(name)) throw invalid(`Schedule group name ${name} is invalid.`);
        if (groups.has(name)) throw conflict(`Schedule group ${name} already exists.`);
        const t = now();
        groups.set(name, { Name: name, CreationDate: t, LastModificationDate: t });
        save();
        return { ScheduleGroupArn: groupArn(name) };
      },
      GET(name) {
        return describeGroup(group(name));
      },
      DELETE(name) {
        if (name === DEFAULT_GROUP) throw invalid("The default schedule group cannot be deleted.");
        group(name);
        groups.delete(name);
        // The service deletes the group's schedules with it.
        for (const [key, s] of schedules) if (s.GroupName === name) schedules.delete(key);
        save();
        wake();
        return {};
      },
    },
    groups: {
      GET(_name, _body, query) {
        const prefix = query.get("NamePrefix") ?? "";
        const all = [...groups.values()].filter((g) => g.Name.startsWith(prefix)).sort((a, b) => a.Name.localeCompare(b.Name));
        const { items, NextToken } = page(all, query);
        return { ScheduleGroups: items.map(describeGroup), ...(NextToken ? { NextToken } : {}) };
      },
    },
  };

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => send(res, 500, "InternalServerException", { Message: String(error) }));
  });
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://local");
    const parts = url.pathname.split("/").filter(Boolean);
    const resource =
      parts[0] === "schedules" ? (parts.length === 1 ? "schedules" : parts.length === 2 ? "schedule" : undefined)
      : parts[0] === "schedule-groups" ? (parts.length === 1 ? "groups" : parts.length === 2 ? "group" : undefined)
      : undefined;
    const operation = resource ? routes[resource]![req.method ?? ""] : undefined;
    if (!operation) return send(res, 404, "UnknownOperationException", { Message: `The local Scheduler does not serve ${req.method} ${url.pathname}` });
    let body: Json;
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json) : {};
    } catch {
      return send(res, 400, "ValidationException", { Message: "The body is not JSON" });
    }
    try {
      send(res, 200, undefined, operation(decodeURIComponent(parts[1] ?? ""), body, url.searchParams));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      send(res, error.status, error.name, { Message: error.message });
    }
  }

  await new Promise<void>((ready, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", ready);
  });
  const address = server.address();
  const endpoint = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  // Schedules that came due while the stand-in was down fire now.
  wake();
  return {
    endpoint,
    env: {
      AWS_ENDPOINT_URL_SCHEDULER: endpoint,
      TIMER_GROUP: LOCAL_TIMERS.group,
      TIMER_TARGET_ARN: LOCAL_TIMERS.functionArn,
      TIMER_ROLE_ARN: LOCAL_TIMERS.roleArn,
      SCHEDULE_GROUP: LOCAL_SCHEDULES.group,
      SCHEDULE_TARGET_ARN: LOCAL_SCHEDULES.functionArn,
      SCHEDULE_ROLE_ARN: LOCAL_SCHEDULES.roleArn,
      // The stand-in fires a past at() at once; the cloud's minute of lead (shared/engine/timers.ts) is not needed.
      TIMER_LEAD_SECONDS: "0",
    },
    tick,
    stop: async () => {
      closing = true;
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
      await new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      });
    },
  };
}

function send(res: ServerResponse, status: number, errorType: string | undefined, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", ...(errorType ? { "x-amzn-errortype": errorType } : {}) });
  res.end(JSON.stringify(body));
}

/** REST-JSON sends timestamps as epoch seconds. */
const seconds = (ms: number) => ms / 1000;

/** The context a Lambda function invoked by Scheduler sees (the longest a function may run). */
const lambdaContext = (functionArn: string): Context =>
  localLambdaContext({ handler: "", functionName: functionArn.split(":").pop()!, arn: functionArn, timeoutSeconds: 15 * 60 });
