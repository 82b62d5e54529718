/**
 * What the local Step Functions' modules share: the local ARNs, an execution as the stand-in keeps it, and
 * errors as Step Functions reports them (infra/local/stepfunctions.ts puts them together).
 */
import "../polyfills.js";
import { ExecutionError, StateMachine, type StateMachineDefinition } from "aws-local-stepfunctions";
import type { ExecutionStatus } from "../../../shared/engine/status-change.js";
import type { ExecutionHistory } from "./history.js";

export const LOCAL_REGION = "us-east-1";
export const LOCAL_ACCOUNT = "000000000000";
export const localStateMachineArn = (machine: string) => `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:${machine}`;
export const localExecutionArn = (machine: string, name: string) => `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:execution:${machine}:${name}`;
/** The ARN of a function the stand-in runs in process (a Task's Resource, or a waitForTaskToken task's FunctionName). */
export const localFunctionArn = (name: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${name}`;

export type Json = Record<string, any>;
export type Status = ExecutionStatus;

export interface Execution {
  arn: string;
  name: string;
  /** The document it runs. */
  machine: Compiled;
  /** The state machine's ARN (never a version's), and the version's when it was started on one. */
  stateMachineArn: string;
  versionArn?: string;
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
  history: ExecutionHistory;
  abort?: () => void;
  timer?: NodeJS.Timeout;
}

/**
 * A state the library runs with a local handler: a task module, a task-token callback, or an emulated
 * Distributed Map. In a Map Run's child (`mapRun`), its events belong to the child execution, not to the
 * execution's history.
 */
export type Binding = (execution: Execution, input: unknown, where?: { mapRun?: boolean }) => Promise<unknown>;

/** A document ready to run: the library's runner for the rewritten document, and the local handler of each bound state. */
export interface Compiled {
  /** The state machine's name. */
  name: string;
  runner: StateMachine;
  timeoutSeconds?: number;
  bindings: Map<string, Binding>;
}

/** An error as Step Functions reports it: `name` is the Error field, `message` the Cause. */
export class StatesError extends Error {
  constructor(name: string, cause: string) {
    super(cause);
    this.name = name;
  }
}

/** Thrown into a state that would start after its execution ended; neither retried nor caught. */
export class ExecutionEnded extends StatesError {
  readonly isRetryable = false;
  readonly isCatchable = false;
  constructor() {
    super("States.Runtime", "The execution has ended");
  }
}

/**
 * The library's own timeout error class: `States.TaskFailed` in a Retry or Catch matches every error but
 * an instance of it, as in Step Functions. The library does not export it; a Task that times out after
 * a millisecond hands it over (`libraryReady`, awaited before the stand-in serves).
 */
let TimeoutErrorClass: (new () => Error) | undefined;
export const libraryReady: Promise<void> = (async () => {
  const probe = new StateMachine({ StartAt: "T", States: { T: { Type: "Task", Resource: "local:probe", TimeoutSeconds: 0.001, End: true } } } as unknown as StateMachineDefinition, {
    validationOptions: { noValidate: true },
  });
  const failed = await probe.run({}, { overrides: { taskResourceLocalHandlers: { T: () => new Promise<never>(() => undefined) } } }).result.then(
    () => undefined,
    (error: { cause?: Error }) => error.cause,
  );
  if (failed?.name !== "States.Timeout") throw new Error("aws-local-stepfunctions did not time out a Task; the local Step Functions cannot emulate task timeouts");
  TimeoutErrorClass = failed.constructor as new () => Error;
})();

/** States.Timeout or States.HeartbeatTimeout, as the library's timeout error (so States.TaskFailed does not match it). */
export function timeoutError(name: "States.Timeout" | "States.HeartbeatTimeout", cause: string): Error {
  if (!TimeoutErrorClass) throw new Error("timeoutError before libraryReady");
  return Object.assign(new TimeoutErrorClass(), { name, message: cause });
}

export const isTimeoutError = (error: unknown): boolean => TimeoutErrorClass !== undefined && error instanceof TimeoutErrorClass;

/** How Lambda reports a function error to Step Functions: Error is the error's name, Cause a JSON document. */
export function lambdaError(error: unknown): StatesError {
  if (error instanceof StatesError) return error;
  const e = error instanceof Error ? error : new Error(String(error));
  return new StatesError(e.name, JSON.stringify({ errorType: e.name, errorMessage: e.message, trace: (e.stack ?? "").split("\n") }));
}

/** An execution's or item's failure as DescribeExecution reports it. */
export function describeFailure(error: unknown): { error: string; cause: string } {
  const e = error instanceof Error ? (error instanceof ExecutionError && error.cause instanceof Error ? error.cause : error) : new Error(String(error));
  return { error: e.name, cause: e.message };
}

/** Node timers hold at most 2^31-1 ms; longer waits would fire at once. */
export const MAX_TIMER_SECONDS = 2_000_000;
