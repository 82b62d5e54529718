/**
 * What every compiled Task sends: one Lambda (the dispatcher), invoked with a task token; it runs the
 * platform built-in or queues the activity, and the run resumes when SendTaskSuccess/Failure arrives.
 */
export const DISPATCH_RESOURCE = "arn:aws:states:::lambda:invoke.waitForTaskToken";

/** The dispatcher's event (the `Payload` of every compiled Task). */
export interface DispatchEvent {
  /** The Step Functions task token; never leaves the platform. */
  token: string;
  /** `$$.Execution.Id`: the dispatcher finds the run (and its workspace) from it, never from program data. */
  execution: string;
  /** The state's name in the program, a literal of the compiled document. */
  state: string;
  /** `activity:<name>` or `platform:<builtin>`, a literal of the compiled document. */
  resource: string;
  /** The tenant's Parameters, evaluated (or the whole state input without them). */
  input: unknown;
  /** The state's raw input, on top-level states only: where a reset or a restart re-enters. */
  checkpoint?: unknown;
}

/**
 * Lambda's own transient failures, retried before the tenant's retriers see anything (the retry AWS recommends
 * for every Lambda task). Each retry invokes the dispatcher again with a new token.
 */
export const DISPATCH_RETRY = {
  ErrorEquals: ["Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException", "Lambda.TooManyRequestsException"],
  IntervalSeconds: 2,
  MaxAttempts: 6,
  BackoffRate: 2,
} as const;
