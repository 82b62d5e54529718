/**
 * The local Step Functions: an HTTP server speaking the service's JSON 1.0 protocol (what
 * @aws-sdk/client-sfn needs from our handlers), running state machines with aws-local-stepfunctions in
 * this process: the engine table's machines (functions/engine.ts), and machines created at run time
 * (workflows) whose tasks are `.waitForTaskToken` invocations of local functions.
 *
 * What it supplies that the library lacks (docs/engine.md), one concern per module in stepfunctions/:
 * - Task states run local handler modules (functions.ts), bound by state name as the library requires
 *   (compile.ts); a Task naming anything else is refused, never sent to real Lambda.
 * - Distributed Map states run here (distributed-map.ts).
 * - State machines created, updated and published at run time, optionally kept in a file (machines.ts).
 * - Task tokens: SendTaskSuccess/Failure/Heartbeat, TimeoutSeconds and HeartbeatSeconds (tokens.ts).
 * - Execution histories (history.ts), and status-change events as EventBridge would deliver them.
 * - Executions run in the background; StopExecution aborts them (ABORTED) and no task starts afterwards;
 *   the execution timeout (TimeoutSeconds) ends them TIMED_OUT.
 */
import "./polyfills.js";
import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import { setImmediate as nextMacrotask } from "node:timers/promises";
import { S3Client } from "@aws-sdk/client-s3";
import { ExecutionAbortedError, ExecutionError, ExecutionTimeoutError } from "aws-local-stepfunctions";
import { stateMachines, type EngineTask, type StateMachineRow } from "../../functions/engine.js";
import { handlerModule } from "../../functions/routes.js";
import type { StatusChangeEvent } from "../../shared/engine/status-change.js";
import { deployedDefinition } from "../engine-definition.js";
import { compile, type TaskPlan, type TaskResolver } from "./stepfunctions/compile.js";
import { lambdaContext, LocalFunctions, type FunctionConfig } from "./stepfunctions/functions.js";
import { data, ExecutionHistory } from "./stepfunctions/history.js";
import { MachineRegistry, NAME, type Target } from "./stepfunctions/machines.js";
import {
  describeFailure,
  ExecutionEnded,
  isTimeoutError,
  libraryReady,
  LOCAL_ACCOUNT,
  LOCAL_REGION,
  localExecutionArn,
  localFunctionArn,
  localStateMachineArn,
  MAX_TIMER_SECONDS,
  type Binding,
  type Compiled,
  type Execution,
  type Json,
  type Status,
} from "./stepfunctions/model.js";
import { ApiError, page, seconds, serveJsonProtocol, type Operation } from "./stepfunctions/protocol.js";
import { TaskTokens, type TaskLimits } from "./stepfunctions/tokens.js";

export { LOCAL_ACCOUNT, LOCAL_REGION, localFunctionArn, localStateMachineArn };
/** The Resource a task's Task state names locally, where CDK writes its function's ARN. */
export const localTaskArn = (machine: string, task: string) => localFunctionArn(`${machine}-${task}`);
export const localTaskResources = (machine: string, row: Pick<StateMachineRow, "tasks">): Record<string, string> =>
  Object.fromEntries(Object.keys(row.tasks).map((task) => [task, localTaskArn(machine, task)]));
/** The only Task resource of machines created at run time: a local function invoked with a task token. */
export const CALLBACK_TASK_RESOURCE = "arn:aws:states:::lambda:invoke.waitForTaskToken";

const ROOT = resolve(import.meta.dirname, "../..");
/** How long a local function's context says it may run (getRemainingTimeInMillis). */
const CALLBACK_FUNCTION_TIMEOUT_SECONDS = 60;
const STATE_FILE = "stepfunctions-machines.json";

export interface LocalStepFunctionsOptions {
  /** Default: THE engine table. */
  machines?: Record<string, StateMachineRow>;
  /** The document to run per machine; default: deployedDefinition(row, local task ARNs), as CDK deploys it. */
  definitions?: Record<string, Record<string, unknown>>;
  /** Where a handler module is; default functions/<handler>.ts in this project. */
  taskModule?: (handler: string) => string;
  /**
   * The functions `.waitForTaskToken` tasks may invoke: function ARN (see localFunctionArn) → handler
   * module, as in the engine table (e.g. "engine/workflow-dispatch"). Default: none.
   */
  functions?: Record<string, string>;
  /** A directory where machines created at run time and their versions are kept across restarts; default: memory only. */
  stateDir?: string;
  /** Called when an execution of any machine starts (RUNNING) and ends, as an EventBridge rule on `aws.states` would be. */
  onStatusChange?: (event: StatusChangeEvent) => Promise<void> | void;
  /** A handler module whose `handler(event, context)` is called like onStatusChange (both may be given). */
  onStatusChangeHandler?: string;
  /** Reads ItemReader objects; default a client from the environment. */
  s3?: S3Client;
  /** Where task, Map and notification failures are reported (Lambda would log them); default console.error. */
  log?: (message: string) => void;
}

export interface LocalStepFunctions {
  endpoint: string;
  /** AWS_ENDPOINT_URL_SFN and each machine's ARN variable, as CDK gives them to a function. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startStepFunctions(options: LocalStepFunctionsOptions = {}): Promise<LocalStepFunctions> {
  await libraryReady;
  const rows = options.machines ?? (stateMachines as Record<string, StateMachineRow>);
  let closing = false;
  // Invocations in flight when the stand-in stops fail as the backends go away; that is not news.
  const log = (message: string) => closing || (options.log ?? console.error)(message);
  const s3 = options.s3 ?? new S3Client({});
  const functions = new LocalFunctions(options.taskModule ?? ((handler: string) => join(ROOT, handlerModule(handler))), log);
  const callbackFunctions = new Map(Object.entries(options.functions ?? {}));
  const tokens = new TaskTokens();
  // `$$.Task.Token` in a Parameters template evaluates to this; each attempt's binding puts its own token in its place.
  const tokenPlaceholder = `local-task-token-${randomUUID()}`;

  /** An engine table task: the function's result is the state's. */
  function lambdaTaskBinding(config: FunctionConfig): Binding {
    return async (execution, input, where) => {
      await enteredFirst(execution);
      const history = where?.mapRun ? undefined : execution.history;
      history?.add("LambdaFunctionScheduled", {
        lambdaFunctionScheduledEventDetails: { resource: config.arn, ...data("input", input), timeoutInSeconds: config.timeoutSeconds },
      });
      history?.add("LambdaFunctionStarted");
      try {
        const output = await functions.invoke(config, input, `${execution.name} ${config.functionName}`);
        history?.add("LambdaFunctionSucceeded", { lambdaFunctionSucceededEventDetails: data("output", output) });
        return output;
      } catch (error) {
        history?.add("LambdaFunctionFailed", { lambdaFunctionFailedEventDetails: failure(error) });
        throw error;
      }
    };
  }

  /**
   * A `.waitForTaskToken` task: a fresh token per attempt in the Payload the library evaluated, the function
   * invoked with it, and the state's result whatever SendTaskSuccess hands back (or its failure).
   */
  function callbackBinding(stateName: string, config: FunctionConfig, limits: TaskLimits): Binding {
    const resource = { resourceType: "lambda", resource: "invoke.waitForTaskToken" };
    return async (execution, input, where) => {
      await enteredFirst(execution);
      const history = where?.mapRun ? undefined : execution.history;
      const { token, result } = tokens.issue(execution, limits);
      const parameters = withToken(input, token) as Json;
      history?.add("TaskScheduled", {
        taskScheduledEventDetails: {
          ...resource,
          region: LOCAL_REGION,
          parameters: JSON.stringify(parameters),
          ...(limits.timeoutSeconds !== undefined ? { timeoutInSeconds: limits.timeoutSeconds } : {}),
          ...(limits.heartbeatSeconds !== undefined ? { heartbeatInSeconds: limits.heartbeatSeconds } : {}),
        },
      });
      history?.add("TaskStarted", { taskStartedEventDetails: resource });
      functions.invoke(config, parameters.Payload ?? null, `${execution.name} ${stateName}`).then(
        (response) => {
          if (tokens.isOpen(token)) history?.add("TaskSubmitted", { taskSubmittedEventDetails: { ...resource, ...data("output", { Payload: response, StatusCode: 200 }) } });
        },
        (error: Error) => tokens.failOpen(token, error),
      );
      try {
        const output = await result;
        history?.add("TaskSucceeded", { taskSucceededEventDetails: { ...resource, ...data("output", output) } });
        return output;
      } catch (error) {
        if (!(error instanceof ExecutionEnded)) {
          const [type, key] = isTimeoutError(error) ? ["TaskTimedOut", "taskTimedOutEventDetails"] : ["TaskFailed", "taskFailedEventDetails"];
          history?.add(type, { [key]: { ...resource, ...failure(error) } });
        }
        throw error;
      }
    };
  }

  /** Nothing of an ended execution starts; the library's StateEntered reaches the history before the task's events. */
  async function enteredFirst(execution: Execution): Promise<void> {
    if (execution.ended.signal.aborted) throw new ExecutionEnded();
    await nextMacrotask();
    if (execution.ended.signal.aborted) throw new ExecutionEnded();
  }

  function withToken(value: unknown, token: string): unknown {
    if (typeof value === "string") return value.split(tokenPlaceholder).join(token);
    if (Array.isArray(value)) return value.map((v) => withToken(v, token));
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withToken(v, token)]));
    return value;
  }

  /** A `.waitForTaskToken` Task on a known local function, or an Error saying why not. */
  const callbackTask: TaskResolver = (stateName, state) => {
    const known = [...callbackFunctions.keys()].join(", ") || "none";
    if (state.Resource !== CALLBACK_TASK_RESOURCE) {
      throw new Error(`Task ${stateName} names ${state.Resource}; locally a task is ${CALLBACK_TASK_RESOURCE} on a local function (${known})`);
    }
    const functionArn = state.Parameters?.FunctionName;
    const handler = typeof functionArn === "string" ? callbackFunctions.get(functionArn) : undefined;
    if (!handler) throw new Error(`Task ${stateName} invokes ${JSON.stringify(functionArn)}, which is no local function (${known})`);
    const unemulated = ["TimeoutSecondsPath", "HeartbeatSecondsPath", "Credentials"].filter((f) => f in state);
    if (unemulated.length) throw new Error(`Task ${stateName} uses ${unemulated.join(", ")}, which the local engine does not emulate`);
    const config: FunctionConfig = { handler, arn: functionArn, functionName: functionArn.split(":").at(-1)!, timeoutSeconds: CALLBACK_FUNCTION_TIMEOUT_SECONDS };
    const limits = { timeoutSeconds: state.TimeoutSeconds as number | undefined, heartbeatSeconds: state.HeartbeatSeconds as number | undefined };
    return {
      binding: callbackBinding(stateName, config, limits),
      // The token's own timers time the task out (the library's default would be 60 s, not none).
      state: { ...state, TimeoutSeconds: MAX_TIMER_SECONDS, ...widenTimeouts(state) },
    };
  };

  /** The engine table's tasks of one machine, by the ARNs written into its definition; callback tasks too. */
  const engineTasks = (machine: string, row: StateMachineRow): TaskResolver => {
    const byArn = new Map(Object.entries(row.tasks).map(([key, task]) => [localTaskArn(machine, key), { key, task }]));
    return (stateName, state): TaskPlan => {
      if (state.Resource === CALLBACK_TASK_RESOURCE) return callbackTask(stateName, state);
      const found = byArn.get(state.Resource);
      if (!found) throw new Error(`Task ${stateName} names ${state.Resource}, which is none of the machine's tasks (${[...byArn.keys()].join(", ")})`);
      return {
        binding: lambdaTaskBinding(engineFunction(machine, found.key, found.task)),
        // Lambda ends the invocation at the function's timeout; the library would give up after 60 s.
        state: { ...state, TimeoutSeconds: state.TimeoutSeconds ?? found.task.timeoutSeconds },
      };
    };
  };

  const compiled = new Map<string, Compiled>();
  const compiledKey = (name: string, definition: string) => `${name}\u0000${definition}`;
  const registry = new MachineRegistry(
    (name, definition) => void runnable(name, definition),
    options.stateDir ? join(options.stateDir, STATE_FILE) : undefined,
  );
  for (const [name, row] of Object.entries(rows)) {
    const record = registry.registerDeployed(name, options.definitions?.[name] ?? deployedDefinition(row, localTaskResources(name, row)));
    // The engine table's machines are checked when the stand-in starts: a bad one stops it.
    compiled.set(compiledKey(name, record.definition), compile(name, JSON.parse(record.definition), engineTasks(name, row), { s3, log }));
  }

  /** A created machine's document, compiled once; InvalidDefinition when the stand-in cannot run it. */
  function runnable(name: string, definition: string): Compiled {
    const key = compiledKey(name, definition);
    if (!compiled.has(key)) {
      try {
        compiled.set(key, compile(name, JSON.parse(definition), callbackTask, { s3, log }));
      } catch (error) {
        throw new ApiError("InvalidDefinition", `Invalid State Machine Definition: ${(error as Error).message}`);
      }
    }
    return compiled.get(key)!;
  }

  const executions = new Map<string, Execution>();
  const listeners: Array<(event: StatusChangeEvent) => unknown> = [];
  if (options.onStatusChange) listeners.push(options.onStatusChange);
  if (options.onStatusChangeHandler) {
    const handler = options.onStatusChangeHandler;
    const config: FunctionConfig = { handler, arn: localFunctionArn("status-change"), functionName: "status-change", timeoutSeconds: CALLBACK_FUNCTION_TIMEOUT_SECONDS };
    listeners.push(async (event) => (await functions.load(handler))(event, lambdaContext(config)));
  }
  const delivered = new WeakMap<Execution, Promise<void>>();

  /** The status change, to every listener, after the call that made it; in order per execution, failures logged. */
  function notify(execution: Execution): void {
    // Executions cut off because the stand-in stops have not ended: the next start resumes their runs (infra/local/recovery.ts).
    if (!listeners.length || closing) return;
    const event = statusChangeEvent(execution);
    const previous = delivered.get(execution) ?? Promise.resolve();
    const delivery = previous.then(async () => {
      await nextMacrotask();
      for (const listener of listeners) {
        try {
          await listener(structuredClone(event));
        } catch (error) {
          log(`local step functions: the status-change listener failed on ${execution.name} ${event.detail.status}: ${(error as Error)?.stack ?? error}`);
        }
      }
    });
    delivered.set(execution, delivery);
  }

  function end(execution: Execution, status: Exclude<Status, "RUNNING">, fields: Partial<Pick<Execution, "output" | "error" | "cause">> = {}): boolean {
    if (execution.status !== "RUNNING") return false;
    Object.assign(execution, { status, stopDate: new Date(), ...fields });
    clearTimeout(execution.timer);
    execution.ended.abort();
    tokens.endAll(execution);
    execution.history.end(...lastEvent(execution));
    notify(execution);
    return true;
  }

  function start(target: Target, machine: Compiled, name: string, input: string): Execution {
    const arn = localExecutionArn(machine.name, name);
    const versionArn = target.version?.arn;
    const execution: Execution = {
      arn,
      name,
      machine,
      stateMachineArn: target.machine.arn,
      ...(versionArn ? { versionArn } : {}),
      input,
      status: "RUNNING",
      startDate: new Date(),
      ended: new AbortController(),
      context: {
        Execution: { Id: arn, Name: name, RoleArn: target.version?.roleArn ?? target.machine.roleArn, RedriveCount: 0 },
        StateMachine: { Id: versionArn ?? target.machine.arn, Name: machine.name },
        Task: { Token: tokenPlaceholder },
      },
      handlers: {},
      history: new ExecutionHistory(),
    };
    execution.handlers = Object.fromEntries([...machine.bindings].map(([state, binding]) => [state, (value: unknown) => binding(execution, value)]));
    executions.set(arn, execution);
    execution.history.add("ExecutionStarted", {
      executionStartedEventDetails: {
        ...data("input", JSON.parse(input)),
        roleArn: execution.context.Execution.RoleArn,
        ...(versionArn ? { stateMachineVersionArn: versionArn } : {}),
      },
    });
    notify(execution);
    const run = machine.runner.run(JSON.parse(input), { overrides: { taskResourceLocalHandlers: execution.handlers }, context: execution.context });
    execution.history.follow(run.eventLogs);
    execution.abort = run.abort;
    if (machine.timeoutSeconds !== undefined) {
      execution.timer = setTimeout(() => {
        if (end(execution, "TIMED_OUT", { error: "States.Timeout", cause: `The execution ran longer than its ${machine.timeoutSeconds} s timeout` })) run.abort();
      }, Math.min(machine.timeoutSeconds, MAX_TIMER_SECONDS) * 1000);
      execution.timer.unref();
    }
    run.result.then(
      (output) => end(execution, "SUCCEEDED", { output: JSON.stringify(output ?? null) }),
      (error: unknown) => {
        if (error instanceof ExecutionAbortedError) end(execution, "ABORTED");
        else if (error instanceof ExecutionTimeoutError) end(execution, "TIMED_OUT", { error: "States.Timeout" });
        else end(execution, "FAILED", describeFailure(error instanceof ExecutionError ? error.cause : error));
      },
    );
    return execution;
  }

  const operations: Record<string, Operation> = {
    CreateStateMachine: (body) => registry.create(body),
    UpdateStateMachine: (body) => registry.update(body),
    PublishStateMachineVersion: (body) => registry.publish(body),
    DescribeStateMachine: (body) => registry.describe(body),
    ListStateMachineVersions: (body) => registry.listVersions(body),
    ListStateMachines: (body) => registry.list(body),
    StartExecution(body) {
      const target = registry.resolve(body.stateMachineArn);
      const name = body.name ?? randomUUID();
      if (!NAME.test(name)) throw new ApiError("InvalidName", `Invalid Name: '${name}'`);
      const input = body.input ?? "{}";
      try {
        JSON.parse(input);
      } catch {
        throw new ApiError("InvalidExecutionInput", "Invalid State Machine Execution Input: 'the input is not JSON'");
      }
      const existing = executions.get(localExecutionArn(target.machine.name, name));
      if (existing) {
        // Standard workflows: the same name and input while running is the same call; anything else is refused.
        if (existing.status === "RUNNING" && existing.input === input && existing.versionArn === target.version?.arn) {
          return { executionArn: existing.arn, startDate: seconds(existing.startDate) };
        }
        throw new ApiError("ExecutionAlreadyExists", `Execution Already Exists: '${existing.arn}'`);
      }
      const execution = start(target, runnable(target.machine.name, target.definition), name, input);
      return { executionArn: execution.arn, startDate: seconds(execution.startDate) };
    },
    DescribeExecution(body) {
      const e = find(body.executionArn);
      return {
        ...summary(e),
        input: e.input,
        inputDetails: { included: true },
        ...(e.output !== undefined ? { output: e.output, outputDetails: { included: true } } : {}),
        ...(e.error !== undefined ? { error: e.error } : {}),
        ...(e.cause !== undefined ? { cause: e.cause } : {}),
        redriveCount: 0,
      };
    },
    StopExecution(body) {
      const e = find(body.executionArn);
      if (end(e, "ABORTED", { ...(body.error !== undefined ? { error: body.error } : {}), ...(body.cause !== undefined ? { cause: body.cause } : {}) })) e.abort?.();
      return { stopDate: seconds(e.stopDate!) };
    },
    ListExecutions(body) {
      const { machine, version } = registry.resolve(body.stateMachineArn);
      const all = [...executions.values()]
        .filter((e) => e.stateMachineArn === machine.arn && (!version || e.versionArn === version.arn) && (!body.statusFilter || e.status === body.statusFilter))
        .sort((a, b) => b.startDate.getTime() - a.startDate.getTime());
      const { items, nextToken } = page(all, body);
      return { executions: items.map(summary), ...(nextToken ? { nextToken } : {}) };
    },
    GetExecutionHistory: (body) => find(body.executionArn).history.page(body),
    SendTaskSuccess(body) {
      tokens.succeed(body.taskToken, body.output);
      return {};
    },
    SendTaskFailure(body) {
      tokens.fail(body.taskToken, body.error, body.cause);
      return {};
    },
    SendTaskHeartbeat(body) {
      tokens.heartbeat(body.taskToken);
      return {};
    },
  };

  function find(arn: unknown): Execution {
    if (typeof arn !== "string" || !arn.startsWith("arn:aws:states:")) throw new ApiError("InvalidArn", `Invalid Arn: '${String(arn)}'`);
    const execution = executions.get(arn);
    if (!execution) throw new ApiError("ExecutionDoesNotExist", `Execution Does Not Exist: '${arn}'`);
    return execution;
  }

  const server = await serveJsonProtocol(operations);
  return {
    endpoint: server.endpoint,
    env: {
      AWS_ENDPOINT_URL_SFN: server.endpoint,
      ...Object.fromEntries(Object.entries(rows).map(([name, row]) => [row.arnEnv, localStateMachineArn(name)])),
    },
    stop: async () => {
      closing = true;
      for (const execution of executions.values()) {
        if (end(execution, "ABORTED", { error: "States.Runtime", cause: "The local Step Functions stopped" })) execution.abort?.();
      }
      await server.close();
    },
  };
}

function engineFunction(machine: string, key: string, task: EngineTask): FunctionConfig {
  return { handler: task.handler, arn: localTaskArn(machine, key), functionName: `${machine}-${key}`, timeoutSeconds: task.timeoutSeconds, memoryMb: task.memoryMb };
}

/**
 * Step Functions' `States.Timeout` in a Retry or Catch also matches a missed heartbeat; the library
 * compares names, so the heartbeat's own name is added wherever `States.Timeout` is.
 */
function widenTimeouts(state: Json): Json {
  const widen = (rules: unknown) =>
    (rules as Json[]).map((rule) =>
      rule.ErrorEquals?.includes("States.Timeout") && !rule.ErrorEquals.includes("States.HeartbeatTimeout")
        ? { ...rule, ErrorEquals: [...rule.ErrorEquals, "States.HeartbeatTimeout"] }
        : rule,
    );
  return Object.fromEntries((["Retry", "Catch"] as const).filter((field) => Array.isArray(state[field])).map((field) => [field, widen(state[field])]));
}

const failure = (error: unknown) => ({ error: (error as Error)?.name ?? "Error", cause: (error as Error)?.message ?? String(error) });

/** The execution's last history event, by how it ended. */
function lastEvent(e: Execution): [string, Json] {
  const reason = { ...(e.error !== undefined ? { error: e.error } : {}), ...(e.cause !== undefined ? { cause: e.cause } : {}) };
  switch (e.status) {
    case "SUCCEEDED":
      return ["ExecutionSucceeded", { executionSucceededEventDetails: { output: e.output, outputDetails: { truncated: false } } }];
    case "FAILED":
      return ["ExecutionFailed", { executionFailedEventDetails: reason }];
    case "TIMED_OUT":
      return ["ExecutionTimedOut", { executionTimedOutEventDetails: reason }];
    default:
      return ["ExecutionAborted", { executionAbortedEventDetails: reason }];
  }
}

/** An execution as ListExecutions lists it (DescribeExecution adds its data). */
function summary(e: Execution): Json {
  return {
    executionArn: e.arn,
    stateMachineArn: e.stateMachineArn,
    ...(e.versionArn ? { stateMachineVersionArn: e.versionArn } : {}),
    name: e.name,
    status: e.status,
    startDate: seconds(e.startDate),
    ...(e.stopDate ? { stopDate: seconds(e.stopDate) } : {}),
  };
}

function statusChangeEvent(e: Execution): StatusChangeEvent {
  const time = e.stopDate ?? e.startDate;
  return {
    version: "0",
    id: randomUUID(),
    "detail-type": "Step Functions Execution Status Change",
    source: "aws.states",
    account: LOCAL_ACCOUNT,
    time: time.toISOString().replace(/\.\d{3}Z$/, "Z"),
    region: LOCAL_REGION,
    resources: [e.arn],
    detail: {
      executionArn: e.arn,
      stateMachineArn: e.stateMachineArn,
      ...(e.versionArn ? { stateMachineVersionArn: e.versionArn } : {}),
      name: e.name,
      status: e.status,
      startDate: e.startDate.getTime(),
      stopDate: e.stopDate ? e.stopDate.getTime() : null,
      input: e.input,
      output: e.output ?? null,
      error: e.error ?? null,
      cause: e.cause ?? null,
      inputDetails: { included: true },
      outputDetails: e.output !== undefined ? { included: true } : null,
    },
  };
}

