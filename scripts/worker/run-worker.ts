import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";

/**
 * The reference worker (docs/workflows.md, "Workers"): registers a module's workflows in a deployment every
 * 10 s, long-polls for its activity tasks with a few concurrent slots, runs them, heartbeats and reports.
 * It speaks only the public HTTP routes, so it runs anywhere a key works; `npm run worker` is its CLI, and
 * tests run it in process against the embedded API.
 */

export interface WorkflowDeclaration {
  name: string;
  display_name?: string;
  description?: string;
  definition: Record<string, unknown>;
  program: Record<string, unknown>;
}

export interface TaskInfo {
  task_id: string;
  activity: string;
  input: unknown;
  workflow_name: string;
  execution_id: string;
  run_id: string;
  attempt: number;
  heartbeat_seconds: number | null;
  state: string;
}

export interface ActivityContext {
  /** Tells the platform the activity is alive; answers whether the run was asked to cancel. */
  heartbeat(details?: unknown): Promise<{ cancel_requested: boolean }>;
  /** Aborted when a heartbeat learns that the run is being cancelled, or the worker stops. */
  signal: AbortSignal;
  task: TaskInfo;
  /** A call to the platform's API with the worker's key (e.g. to read a file's content). */
  api(path: string, init?: RequestInit): Promise<Response>;
}

export type Activity = (input: any, ctx: ActivityContext) => Promise<unknown>;

export interface WorkflowModule {
  workflows: WorkflowDeclaration[];
  activities: Record<string, Activity>;
}

export interface WorkerOptions {
  url: string;
  key: string;
  deployment: string;
  /** Default: the host name. */
  name?: string;
  module: WorkflowModule;
  /** Tasks run at once (poll slots). Default 4. */
  concurrency?: number;
  /** Default 10 s, as Mistral's workers. */
  registerEveryMs?: number;
  /** How long each poll waits for a task (0..20). Default 20. */
  pollWaitSeconds?: number;
  /**
   * A restart the deployment asked for (`restart_requested` in a poll answer, POST …/{name}/restart): called
   * once the running activities have finished, before the worker registers again. It may answer a new module
   * (the CLI imports the activities module afresh), which the worker serves from then on.
   */
  onRestart?: () => Promise<WorkflowModule | void>;
  log?: (message: string) => void;
}

export interface RunningWorker {
  /** The first registration's answer (rejects when it was refused: the worker then stops). */
  registered: Promise<{ workflow_registration_ids: string[]; has_conflicts: boolean; warnings: string[] }>;
  /** Stops polling and registering, waits for the running activities, and resolves. */
  stop(): Promise<void>;
  /** How many restarts the deployment asked for and this worker carried out. */
  restarts(): number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what} answered ${status}: ${JSON.stringify(body)}`);
    this.name = "HttpError";
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A log line an activity wrote with `console` (decision 0064), waiting to be sent with its task. */
interface CapturedLine {
  level: "DEBUG" | "INFO" | "WARN" | "ERROR";
  message: string;
  timestamp: string;
}

/** The platform's bounds on a log request (POST /v1/workflows/tasks/{task_id}/logs): lines, characters a line, bytes a request. */
const LOG_LINES_PER_REQUEST = 100;
const LOG_LINE_CHARS = 8_192;
const LOG_REQUEST_BYTES = 200 * 1024;

/** The lines of the activity running in this async context (each task runs in its own). */
const activityLines = new AsyncLocalStorage<CapturedLine[]>();
let consoleCaptured = false;

/**
 * `console` inside an activity also goes to the task's log lines (still printed as before): patched once per
 * process, it looks up the running activity through AsyncLocalStorage, so concurrent tasks keep their own lines
 * and code outside activities is untouched.
 */
function captureConsole(): void {
  if (consoleCaptured) return;
  consoleCaptured = true;
  const levels = { debug: "DEBUG", log: "INFO", info: "INFO", warn: "WARN", error: "ERROR" } as const;
  for (const [method, level] of Object.entries(levels) as [keyof typeof levels, CapturedLine["level"]][]) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      activityLines.getStore()?.push({ level, message: format(...args).slice(0, LOG_LINE_CHARS), timestamp: new Date().toISOString() });
      original(...args);
    };
  }
}

export function runWorker(options: WorkerOptions): RunningWorker {
  const url = options.url.replace(/\/$/, "");
  const name = options.name ?? (process.env.HOSTNAME || "worker");
  const print = options.log ?? ((message: string) => console.error(`[worker ${name}] ${message}`));
  // The worker's own messages are never an activity's log lines, even when written while one runs.
  const log = (message: string) => activityLines.exit(() => print(message));
  const who = { deployment_name: options.deployment, worker_name: name };
  let module = options.module;
  let activities = Object.keys(module.activities);
  const stopping = new AbortController();
  const running = new Set<Promise<void>>();

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${options.key}`, ...(init.body ? { "content-type": "application/json" } : {}), ...init.headers } });

  async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await api(path, { method, body: body === undefined ? undefined : JSON.stringify(body), signal });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : null;
    if (!response.ok) throw new HttpError(response.status, parsed, `${method} ${path}`);
    return parsed as T;
  }

  const register = () =>
    call<{ workflow_registration_ids: string[]; has_conflicts: boolean; warnings: string[] }>("POST", "/v1/workflows/register", {
      ...who,
      definitions: module.workflows.map((w) => ({ ...w, activities })),
    });

  /** Sends the lines captured so far (in requests within the platform's bounds); a refusal is logged, never the task's failure. */
  async function sendLines(task: TaskInfo, lines: CapturedLine[]): Promise<void> {
    while (lines.length) {
      const batch: CapturedLine[] = [];
      let bytes = 0;
      while (lines.length && batch.length < LOG_LINES_PER_REQUEST && bytes + Buffer.byteLength(lines[0]!.message) <= LOG_REQUEST_BYTES) {
        bytes += Buffer.byteLength(lines[0]!.message);
        batch.push(lines.shift()!);
      }
      if (!batch.length) batch.push(lines.shift()!);
      await call("POST", `/v1/workflows/tasks/${task.task_id}/logs`, { ...who, lines: batch }).catch((error) => log(`log lines of ${task.task_id} not sent: ${(error as Error).message}`));
    }
  }

  function runTask(task: TaskInfo): Promise<void> {
    captureConsole();
    const lines: CapturedLine[] = [];
    return activityLines.run(lines, () => runTaskWithLines(task, lines));
  }

  async function runTaskWithLines(task: TaskInfo, lines: CapturedLine[]): Promise<void> {
    const cancel = new AbortController();
    const signal = AbortSignal.any([cancel.signal, stopping.signal]);
    const heartbeat = async (details?: unknown) => {
      const answer = await call<{ cancel_requested: boolean }>("POST", `/v1/workflows/tasks/${task.task_id}/heartbeat`, { ...who, ...(details === undefined ? {} : { details }) });
      if (answer.cancel_requested) cancel.abort(new Error("The workflow run was asked to cancel"));
      return answer;
    };
    // A third of HeartbeatSeconds, so one missed beat is not a timeout; without one, often enough to hear of a cancel.
    const every = task.heartbeat_seconds ? Math.max(1, task.heartbeat_seconds / 3) * 1000 : 10_000;
    // Each beat also sends the lines written since the last (a long activity's log is not held to its end).
    const beating = setInterval(() => {
      heartbeat().catch((error) => log(`heartbeat of ${task.task_id} failed: ${(error as Error).message}`));
      void sendLines(task, lines.splice(0));
    }, every);
    try {
      const activity = module.activities[task.activity];
      if (!activity) throw Object.assign(new Error(`This worker has no activity '${task.activity}'`), { name: "ActivityNotFound" });
      const result = await activity(task.input, { heartbeat, signal, task, api });
      // The lines go first: a task's log is complete once its result is in.
      await sendLines(task, lines.splice(0));
      await call("POST", `/v1/workflows/tasks/${task.task_id}/complete`, { ...who, result: result ?? null });
    } catch (error) {
      if (error instanceof HttpError) return log(`task ${task.task_id} (${task.activity}): ${error.message}`);
      const failure = error instanceof Error ? error : new Error(String(error));
      await sendLines(task, lines.splice(0));
      await call("POST", `/v1/workflows/tasks/${task.task_id}/fail`, { ...who, error: { type: failure.name || "Error", message: failure.message.slice(0, 32_000) } }).catch((e) =>
        log(`task ${task.task_id} (${task.activity}) could not be failed: ${(e as Error).message}`),
      );
    } finally {
      clearInterval(beating);
    }
  }

  /**
   * The deployment asked its workers to restart: no slot polls meanwhile, the running activities finish and
   * report, `onRestart` runs (a new module is taken), and the worker registers again, which clears the flag.
   * One restart however many slots heard of it; a poll begun before it ended does not start another.
   */
  let restarting: Promise<void> | undefined;
  let generation = 0;
  function restart(): Promise<void> {
    restarting ??= (async () => {
      log("the deployment asked for a restart: finishing the running activities, then registering again");
      await Promise.allSettled([...running]);
      const fresh = await options.onRestart?.();
      if (fresh) {
        module = fresh;
        activities = Object.keys(fresh.activities);
      }
      await register();
      generation++;
      log(`restarted (${generation})`);
    })()
      .catch((error) => log(`restart failed: ${(error as Error).message}`))
      .finally(() => {
        restarting = undefined;
      });
    return restarting;
  }

  async function slot(): Promise<void> {
    let backoff = 0;
    while (!stopping.signal.aborted) {
      try {
        if (restarting) await restarting;
        const heard = generation;
        const { task, restart_requested: restartRequested } = await call<{ task: TaskInfo | null; restart_requested?: boolean }>(
          "POST",
          "/v1/workflows/workers/poll",
          { ...who, activities, wait_seconds: options.pollWaitSeconds ?? 20 },
          stopping.signal,
        );
        backoff = 0;
        if (task) {
          const work = runTask(task);
          running.add(work);
          await work;
          running.delete(work);
        }
        if (restartRequested && heard === generation && !stopping.signal.aborted) await restart();
      } catch (error) {
        if (stopping.signal.aborted) return;
        backoff = Math.min(10_000, backoff ? backoff * 2 : 500);
        log(`poll failed (${(error as Error).message}); again in ${backoff} ms`);
        await sleep(backoff);
      }
    }
  }

  const registered = register();
  let timer: NodeJS.Timeout | undefined;
  let slots: Promise<void>[] = [];
  const started = registered.then(
    () => {
      if (stopping.signal.aborted) return;
      timer = setInterval(() => register().catch((error) => log(`registration failed: ${(error as Error).message}`)), options.registerEveryMs ?? 10_000);
      slots = Array.from({ length: options.concurrency ?? 4 }, () => slot());
    },
    (error) => log(`registration refused, the worker stops: ${(error as Error).message}`),
  );

  return {
    registered,
    restarts: () => generation,
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await started;
      await Promise.allSettled([...slots, ...running]);
    },
  };
}
