/**
 * The local Step Functions: an HTTP server speaking the service's JSON 1.0 protocol (StartExecution,
 * DescribeExecution, StopExecution, ListExecutions: what @aws-sdk/client-sfn needs from our handlers),
 * running the state machines of functions/engine.ts with aws-local-stepfunctions, in this process.
 *
 * What it supplies that the library lacks (docs/engine.md):
 * - Task states run the engine table's handler modules (functions/<handler>.ts), keyed by state name as
 *   the library requires, mapped from the task ARNs written into the definition; a Task naming anything
 *   else is refused when the stand-in starts, never sent to real Lambda.
 * - Distributed Map states (the library ignores ItemReader and ProcessorConfig silently) run here: the
 *   ItemReader's S3 JSON object is read from the local S3, ItemSelector is evaluated per item with
 *   `$$.Map.Item.Value`/`Index`, the ItemProcessor runs once per item with MaxConcurrency, and a failed
 *   item fails the Map as a Map Run does (States.ExceedToleratedFailureThreshold).
 * - Executions run in the background; StopExecution aborts them (ABORTED) and no task starts afterwards;
 *   the execution timeout (TimeoutSeconds) ends them TIMED_OUT.
 */
import "./polyfills.js";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { Context } from "aws-lambda";
import { ExecutionAbortedError, ExecutionError, ExecutionTimeoutError, StateMachine, type StateMachineDefinition } from "aws-local-stepfunctions";
import { stateMachines, type EngineTask, type StateMachineRow } from "../../functions/engine.js";
import { handlerModule } from "../../functions/routes.js";
import { deployedDefinition } from "../engine-definition.js";

export const LOCAL_REGION = "us-east-1";
export const LOCAL_ACCOUNT = "000000000000";
export const localStateMachineArn = (machine: string) => `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:${machine}`;
/** The Resource a task's Task state names locally, where CDK writes its function's ARN. */
export const localTaskArn = (machine: string, task: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${machine}-${task}`;
export const localTaskResources = (machine: string, row: Pick<StateMachineRow, "tasks">): Record<string, string> =>
  Object.fromEntries(Object.keys(row.tasks).map((task) => [task, localTaskArn(machine, task)]));
const localExecutionArn = (machine: string, name: string) => `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:execution:${machine}:${name}`;

const ROOT = resolve(import.meta.dirname, "../..");

export interface LocalStepFunctionsOptions {
  /** Default: THE engine table. */
  machines?: Record<string, StateMachineRow>;
  /** The document to run per machine; default: deployedDefinition(row, local task ARNs), as CDK deploys it. */
  definitions?: Record<string, Record<string, unknown>>;
  /** Where a task's module is; default functions/<handler>.ts in this project. */
  taskModule?: (handler: string) => string;
  /** Reads ItemReader objects; default a client from the environment. */
  s3?: S3Client;
  /** Where task and Map failures are reported (Lambda would log them); default console.error. */
  log?: (message: string) => void;
}

export interface LocalStepFunctions {
  endpoint: string;
  /** AWS_ENDPOINT_URL_SFN and each machine's ARN variable, as CDK gives them to a function. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

type Json = Record<string, any>;
type Status = "RUNNING" | "SUCCEEDED" | "FAILED" | "TIMED_OUT" | "ABORTED";
type TaskHandler = (event: unknown, context: Context) => unknown;

interface Execution {
  arn: string;
  name: string;
  machine: Compiled;
  input: string;
  status: Status;
  startDate: Date;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  /** Aborted when the execution ends for any reason: nothing of it starts afterwards. */
  ended: AbortController;
  /** The `$$` context its states see. */
  context: Json;
  handlers: Record<string, (input: any) => Promise<any>>;
  abort?: () => void;
  timer?: NodeJS.Timeout;
}

/** A state the library runs with a local handler: a task module, or an emulated Distributed Map. */
type Binding = (execution: Execution, input: unknown) => Promise<unknown>;

interface Compiled {
  name: string;
  arn: string;
  runner: StateMachine;
  timeoutSeconds?: number;
  bindings: Map<string, Binding>;
}

/** An error as Step Functions reports it: `name` is the Error field, `message` the Cause. */
class StatesError extends Error {
  constructor(name: string, cause: string) {
    super(cause);
    this.name = name;
  }
}

/** Thrown into a state that would start after its execution ended; neither retried nor caught. */
class ExecutionEnded extends StatesError {
  readonly isRetryable = false;
  readonly isCatchable = false;
  constructor() {
    super("States.Runtime", "The execution has ended");
  }
}

const DISTRIBUTED_MAP_RESOURCE = "arn:aws:states:::local:distributed-map";
/** A Distributed Map's MaxConcurrency 0 means "as many as Step Functions allows" (10,000); in-process, fewer. */
const DEFAULT_MAP_CONCURRENCY = 1000;
/** Node timers hold at most 2^31-1 ms; longer waits would fire at once. */
const MAX_TIMER_SECONDS = 2_000_000;
/** Distributed Map fields this stand-in does not emulate: refused when it starts, never ignored. */
const UNEMULATED_MAP_FIELDS = [
  "ItemBatcher",
  "ResultWriter",
  "ToleratedFailurePercentage",
  "ToleratedFailurePercentagePath",
  "ToleratedFailureCount",
  "ToleratedFailureCountPath",
  "MaxConcurrencyPath",
];
const MAP_FIELDS_KEPT = ["Comment", "InputPath", "ResultSelector", "ResultPath", "OutputPath", "Retry", "Catch", "Next", "End"];

export async function startStepFunctions(options: LocalStepFunctionsOptions = {}): Promise<LocalStepFunctions> {
  const machines = options.machines ?? (stateMachines as Record<string, StateMachineRow>);
  let closing = false;
  // Invocations in flight when the stand-in stops fail as the backends go away; that is not news.
  const log = (message: string) => closing || (options.log ?? console.error)(message);
  const s3 = options.s3 ?? new S3Client({});
  const taskModule = options.taskModule ?? ((handler: string) => join(ROOT, handlerModule(handler)));

  const modules = new Map<string, Promise<TaskHandler>>();
  async function loadTask(handler: string): Promise<TaskHandler> {
    const file = taskModule(handler);
    if (!modules.has(file)) {
      // Lambda's own error for a function whose code is missing; not cached, so a module written later loads.
      if (!existsSync(file)) throw new StatesError("Runtime.ImportModuleError", `Error: Cannot find module '${file}'`);
      const loading = import(pathToFileURL(file).href).then((m: { handler?: TaskHandler }) => {
        if (typeof m.handler !== "function") throw new StatesError("Runtime.HandlerNotFound", `${file} does not export handler`);
        return m.handler;
      });
      modules.set(file, loading);
      loading.catch(() => modules.delete(file));
    }
    return modules.get(file)!;
  }

  function taskBinding(machine: string, key: string, task: EngineTask): Binding {
    return async (execution, input) => {
      if (execution.ended.signal.aborted) throw new ExecutionEnded();
      try {
        const handler = await loadTask(task.handler);
        const output = await handler(structuredClone(input), lambdaContext(machine, key, task));
        // What Lambda hands back is JSON: undefined becomes null, class instances plain objects.
        return JSON.parse(JSON.stringify(output ?? null)) as unknown;
      } catch (error) {
        const failure = lambdaError(error);
        log(`local step functions: ${execution.name} ${key} (${task.handler}) failed: ${failure.name}: ${(error as Error)?.message ?? error}`);
        throw failure;
      }
    };
  }

  /** The ItemReader + ItemSelector + ItemProcessor of a Distributed Map, as a local handler. */
  function mapBinding(stateName: string, state: Json, processor: StateMachine): Binding {
    const selector = state.ItemSelector ?? state.Parameters;
    return async (execution, input) => {
      if (execution.ended.signal.aborted) throw new ExecutionEnded();
      const items = await readItems(state, input, execution);
      const results: unknown[] = new Array(items.length);
      const running = new Set<() => void>();
      const abortRunning = () => running.forEach((abort) => abort());
      let next = 0;
      let failed: { index: number; error: unknown } | undefined;
      const stopped = () => Boolean(failed) || execution.ended.signal.aborted;
      const worker = async () => {
        while (!stopped() && next < items.length) {
          const index = next++;
          try {
            const value = items[index];
            const itemInput = selector ? await evaluate(selector, input, { ...execution.context, Map: { Item: { Index: index, Value: value } } }) : value;
            if (stopped()) return;
            const child = processor.run(itemInput as never, { overrides: { taskResourceLocalHandlers: execution.handlers }, context: { StateMachine: execution.context.StateMachine } });
            running.add(child.abort);
            try {
              results[index] = await child.result;
            } finally {
              running.delete(child.abort);
            }
          } catch (error) {
            if (!failed) {
              failed = { index, error };
              abortRunning();
            }
          }
        }
      };
      execution.ended.signal.addEventListener("abort", abortRunning);
      try {
        const concurrency = Math.min(Number(state.MaxConcurrency) || DEFAULT_MAP_CONCURRENCY, items.length);
        await Promise.all(Array.from({ length: concurrency }, worker));
      } finally {
        execution.ended.signal.removeEventListener("abort", abortRunning);
      }
      if (execution.ended.signal.aborted) throw new ExecutionEnded();
      if (failed) {
        const { error, cause } = describeFailure(failed.error);
        log(`local step functions: ${execution.name} ${stateName} item ${failed.index} failed: ${error}: ${cause}`);
        // As a Map Run reports it: the item's own error is in its child execution, not the Map's.
        throw new StatesError("States.ExceedToleratedFailureThreshold", "The specified tolerated failure threshold was exceeded");
      }
      return results;
    };
  }

  async function readItems(state: Json, input: unknown, execution: Execution): Promise<unknown[]> {
    const reader = state.ItemReader as Json | undefined;
    if (!reader) {
      const items = state.ItemsPath ? ((await evaluate({ "items.$": state.ItemsPath }, input, execution.context)) as Json).items : input;
      if (!Array.isArray(items)) throw new StatesError("States.Runtime", "Input of Map state must be an array or ItemsPath property must point to an array");
      return items;
    }
    const where = (await evaluate(reader.Parameters ?? {}, input, execution.context)) as { Bucket?: string; Key?: string; VersionId?: string };
    try {
      const object = await s3.send(new GetObjectCommand({ Bucket: where.Bucket, Key: where.Key, VersionId: where.VersionId }));
      const items: unknown = JSON.parse(await object.Body!.transformToString());
      if (!Array.isArray(items)) throw new Error("the object is not a JSON array");
      const max = Number(reader.ReaderConfig?.MaxItems ?? 0);
      return max > 0 ? items.slice(0, max) : items;
    } catch (error) {
      throw new StatesError("States.ItemReaderFailed", `Reading s3://${where.Bucket}/${where.Key} failed: ${(error as Error).message}`);
    }
  }

  function compile(name: string, row: StateMachineRow, document: Json): Compiled {
    // The document as written must be valid ASL (the library's own validator), before any rewriting.
    new StateMachine(document as unknown as StateMachineDefinition);
    const byArn = new Map(Object.entries(row.tasks).map(([key, task]) => [localTaskArn(name, key), { key, task }]));
    const bindings = new Map<string, Binding>();
    const bind = (stateName: string, target: string, binding: Binding) => {
      // The library keys local handlers by state name across every nesting level.
      const key = `${stateName}\u0000${target}`;
      if (bindings.has(stateName) && (bindings.get(stateName) as Binding & { target?: string }).target !== key) {
        throw new Error(`State machine ${name}: two states are named ${stateName}; the local engine needs unique state names`);
      }
      bindings.set(stateName, Object.assign(binding, { target: key }));
    };

    const rewriteStates = (graph: Json): Json => ({
      ...graph,
      States: Object.fromEntries(Object.entries(graph.States as Json).map(([stateName, state]) => [stateName, rewrite(stateName, state as Json)])),
    });
    const rewrite = (stateName: string, state: Json): Json => {
      if (state.Type === "Task") {
        const found = byArn.get(state.Resource);
        if (!found) {
          throw new Error(`State machine ${name}: Task ${stateName} names ${state.Resource}, which is none of the machine's tasks (${[...byArn.keys()].join(", ")})`);
        }
        bind(stateName, state.Resource, taskBinding(name, found.key, found.task));
        // Lambda ends the invocation at the function's timeout; the library would give up after 60 s.
        return { ...state, TimeoutSeconds: state.TimeoutSeconds ?? found.task.timeoutSeconds };
      }
      if (state.Type === "Parallel") return { ...state, Branches: (state.Branches as Json[]).map(rewriteStates) };
      if (state.Type !== "Map") return state;
      const field = state.ItemProcessor ? "ItemProcessor" : "Iterator";
      const processor = rewriteStates(state[field]);
      if (!(processor.ProcessorConfig?.Mode === "DISTRIBUTED" || state.ItemReader)) return { ...state, [field]: processor };
      const unemulated = UNEMULATED_MAP_FIELDS.filter((f) => f in state);
      if (unemulated.length) throw new Error(`State machine ${name}: Map ${stateName} uses ${unemulated.join(", ")}, which the local engine does not emulate`);
      const reader = state.ItemReader as Json | undefined;
      const readerConfig = (reader?.ReaderConfig ?? {}) as Json;
      if (reader && (reader.Resource !== "arn:aws:states:::s3:getObject" || (readerConfig.InputType ?? "JSON") !== "JSON" || "MaxItemsPath" in readerConfig)) {
        throw new Error(`State machine ${name}: Map ${stateName} reads items with ${JSON.stringify(reader)}; locally only s3:getObject of a JSON array is emulated`);
      }
      const { ProcessorConfig: _config, ...inline } = processor;
      const runner = new StateMachine(inline as unknown as StateMachineDefinition, { validationOptions: { noValidate: true } });
      bind(stateName, `map:${stateName}`, mapBinding(stateName, state, runner));
      // The Map becomes a Task of the same name with the same input/output processing, Retry, Catch and transition.
      const kept = Object.fromEntries(MAP_FIELDS_KEPT.filter((f) => f in state).map((f) => [f, state[f]]));
      return { Type: "Task", Resource: DISTRIBUTED_MAP_RESOURCE, TimeoutSeconds: MAX_TIMER_SECONDS, ...kept };
    };

    const { TimeoutSeconds, ...rewritten } = rewriteStates(document);
    return {
      name,
      arn: localStateMachineArn(name),
      // The execution timeout is kept here instead: the library's own timer would hold the process open.
      runner: new StateMachine(rewritten as unknown as StateMachineDefinition, { validationOptions: { noValidate: true } }),
      timeoutSeconds: typeof TimeoutSeconds === "number" ? TimeoutSeconds : undefined,
      bindings,
    };
  }

  const compiled = new Map<string, Compiled>(
    Object.entries(machines).map(([name, row]) => {
      const machine = compile(name, row, options.definitions?.[name] ?? deployedDefinition(row, localTaskResources(name, row)));
      return [machine.arn, machine];
    }),
  );
  const executions = new Map<string, Execution>();

  function end(execution: Execution, status: Exclude<Status, "RUNNING">, fields: Partial<Pick<Execution, "output" | "error" | "cause">> = {}): boolean {
    if (execution.status !== "RUNNING") return false;
    Object.assign(execution, { status, stopDate: new Date(), ...fields });
    clearTimeout(execution.timer);
    execution.ended.abort();
    return true;
  }

  function start(machine: Compiled, name: string, input: string): Execution {
    const arn = localExecutionArn(machine.name, name);
    const execution: Execution = {
      arn,
      name,
      machine,
      input,
      status: "RUNNING",
      startDate: new Date(),
      ended: new AbortController(),
      context: {
        Execution: { Id: arn, Name: name, RoleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/local-${machine.name}`, RedriveCount: 0 },
        StateMachine: { Id: machine.arn, Name: machine.name },
      },
      handlers: {},
    };
    execution.handlers = Object.fromEntries([...machine.bindings].map(([state, binding]) => [state, (value: unknown) => binding(execution, value)]));
    executions.set(arn, execution);
    const run = machine.runner.run(JSON.parse(input), { overrides: { taskResourceLocalHandlers: execution.handlers }, context: execution.context });
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

  const operations: Record<string, (body: Json) => Json> = {
    StartExecution(body) {
      const machine = compiled.get(body.stateMachineArn);
      if (!machine) throw new ApiError("StateMachineDoesNotExist", `State Machine Does Not Exist: '${body.stateMachineArn}'`);
      const name = body.name ?? randomUUID();
      if (!/^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/.test(name)) throw new ApiError("InvalidName", `Invalid Name: '${name}'`);
      const input = body.input ?? "{}";
      try {
        JSON.parse(input);
      } catch {
        throw new ApiError("InvalidExecutionInput", "Invalid State Machine Execution Input: 'the input is not JSON'");
      }
      const existing = executions.get(localExecutionArn(machine.name, name));
      if (existing) {
        // Standard workflows: the same name and input while running is the same call; anything else is refused.
        if (existing.status === "RUNNING" && existing.input === input) return { executionArn: existing.arn, startDate: seconds(existing.startDate) };
        throw new ApiError("ExecutionAlreadyExists", `Execution Already Exists: '${existing.arn}'`);
      }
      const execution = start(machine, name, input);
      return { executionArn: execution.arn, startDate: seconds(execution.startDate) };
    },
    DescribeExecution(body) {
      const e = find(body.executionArn);
      return {
        executionArn: e.arn,
        stateMachineArn: e.machine.arn,
        name: e.name,
        status: e.status,
        startDate: seconds(e.startDate),
        ...(e.stopDate ? { stopDate: seconds(e.stopDate) } : {}),
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
      const machine = compiled.get(body.stateMachineArn);
      if (!machine) throw new ApiError("StateMachineDoesNotExist", `State Machine Does Not Exist: '${body.stateMachineArn}'`);
      const all = [...executions.values()]
        .filter((e) => e.machine === machine && (!body.statusFilter || e.status === body.statusFilter))
        .sort((a, b) => b.startDate.getTime() - a.startDate.getTime());
      const from = body.nextToken ? Number(Buffer.from(String(body.nextToken), "base64url").toString()) : 0;
      if (!Number.isInteger(from) || from < 0) throw new ApiError("InvalidToken", "Invalid Token");
      const size = Math.min(Number(body.maxResults) || 100, 1000);
      const page = all.slice(from, from + size);
      return {
        executions: page.map((e) => ({
          executionArn: e.arn,
          stateMachineArn: machine.arn,
          name: e.name,
          status: e.status,
          startDate: seconds(e.startDate),
          ...(e.stopDate ? { stopDate: seconds(e.stopDate) } : {}),
        })),
        ...(from + size < all.length ? { nextToken: Buffer.from(String(from + size)).toString("base64url") } : {}),
      };
    },
  };

  function find(arn: unknown): Execution {
    if (typeof arn !== "string" || !arn.startsWith("arn:aws:states:")) throw new ApiError("InvalidArn", `Invalid Arn: '${String(arn)}'`);
    const execution = executions.get(arn);
    if (!execution) throw new ApiError("ExecutionDoesNotExist", `Execution Does Not Exist: '${arn}'`);
    return execution;
  }

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => send(res, 500, { __type: "InternalServerError", message: String(error) }));
  });
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers["x-amz-target"] ?? "");
    const operation = target.startsWith("AWSStepFunctions.") ? operations[target.slice("AWSStepFunctions.".length)] : undefined;
    if (!operation) return send(res, 400, { __type: "UnknownOperationException", message: `The local Step Functions does not serve ${target || "this request"}` });
    let body: Json;
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json) : {};
    } catch {
      return send(res, 400, { __type: "SerializationException", message: "The body is not JSON" });
    }
    try {
      send(res, 200, operation(body));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      send(res, 400, { __type: error.name, message: error.message });
    }
  }

  await new Promise<void>((ready, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", ready);
  });
  const address = server.address();
  const endpoint = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    endpoint,
    env: {
      AWS_ENDPOINT_URL_SFN: endpoint,
      ...Object.fromEntries(Object.entries(machines).map(([name, row]) => [row.arnEnv, localStateMachineArn(name)])),
    },
    stop: async () => {
      closing = true;
      for (const execution of executions.values()) {
        if (end(execution, "ABORTED", { error: "States.Runtime", cause: "The local Step Functions stopped" })) execution.abort?.();
      }
      await new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      });
    },
  };
}

class ApiError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/x-amz-json-1.0" });
  res.end(JSON.stringify(body));
}

/** Step Functions' JSON protocol sends timestamps as epoch seconds. */
const seconds = (date: Date) => date.getTime() / 1000;

/** Evaluates a payload template (Parameters, ItemSelector) with the library's own JSONPath, against `input` and `$$`. */
async function evaluate(template: unknown, input: unknown, context: Json): Promise<unknown> {
  const pass = new StateMachine({ StartAt: "Template", States: { Template: { Type: "Pass", Parameters: template, End: true } } } as unknown as StateMachineDefinition, {
    validationOptions: { noValidate: true },
  });
  return pass.run(input as never, { context }).result;
}

/** How Lambda reports a function error to Step Functions: Error is the error's name, Cause a JSON document. */
function lambdaError(error: unknown): StatesError {
  if (error instanceof StatesError) return error;
  const e = error instanceof Error ? error : new Error(String(error));
  return new StatesError(e.name, JSON.stringify({ errorType: e.name, errorMessage: e.message, trace: (e.stack ?? "").split("\n") }));
}

function describeFailure(error: unknown): { error: string; cause: string } {
  const e = error instanceof Error ? (error instanceof ExecutionError && error.cause instanceof Error ? error.cause : error) : new Error(String(error));
  return { error: e.name, cause: e.message };
}

function lambdaContext(machine: string, key: string, task: EngineTask): Context {
  const deadline = Date.now() + task.timeoutSeconds * 1000;
  const functionName = `${machine}-${key}`;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: localTaskArn(machine, key),
    memoryLimitInMB: String(task.memoryMb ?? 512),
    awsRequestId: randomUUID(),
    logGroupName: "local",
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
