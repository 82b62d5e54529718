/**
 * Which fields each state type may carry, and the fields refused with a rule of their own: each either runs
 * outside the platform on AWS (Credentials, Distributed Map's readers and writers) or runs differently under
 * aws-local-stepfunctions, which ignores JSONata, variables and `*Path` timeouts (reference/workflows.md §3.1).
 */
export const STATE_TYPES = ["Pass", "Task", "Choice", "Wait", "Succeed", "Fail", "Parallel", "Map"] as const;
export type StateType = (typeof STATE_TYPES)[number];

const IO = ["InputPath", "OutputPath"];
const TRANSITION = ["Next", "End"];
const ERRORS = ["Retry", "Catch"];

export const STATE_FIELDS: Record<StateType, readonly string[]> = {
  Pass: [...IO, ...TRANSITION, "Parameters", "ResultPath", "Result"],
  Task: [...IO, ...TRANSITION, ...ERRORS, "Resource", "Parameters", "ResultSelector", "ResultPath", "TimeoutSeconds", "HeartbeatSeconds"],
  Choice: [...IO, "Choices", "Default"],
  Wait: [...IO, ...TRANSITION, "Seconds", "Timestamp", "SecondsPath", "TimestampPath"],
  Succeed: [...IO],
  Fail: ["Error", "Cause", "ErrorPath", "CausePath"],
  Parallel: [...IO, ...TRANSITION, ...ERRORS, "Branches", "Parameters", "ResultSelector", "ResultPath"],
  Map: [...IO, ...TRANSITION, ...ERRORS, "ItemsPath", "ItemSelector", "Parameters", "ItemProcessor", "Iterator", "MaxConcurrency", "ResultSelector", "ResultPath"],
};

/** On every state and graph: `Type` and a comment; `QueryLanguage` only as "JSONPath" (checked apart). */
export const COMMON_FIELDS = ["Type", "Comment", "QueryLanguage"];

export const GRAPH_FIELDS = ["StartAt", "States", "Comment"];
export const PROGRAM_FIELDS = [...GRAPH_FIELDS, "Version", "QueryLanguage"];
export const ITEM_PROCESSOR_FIELDS = [...GRAPH_FIELDS, "ProcessorConfig"];

export const RETRIER_FIELDS = ["ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds", "JitterStrategy", "Comment"];
export const CATCHER_FIELDS = ["ErrorEquals", "Next", "ResultPath", "Comment"];

/** Fields refused wherever they appear (state, retrier, catcher, choice rule), each with its rule and why. */
export const REFUSED_FIELDS: Record<string, { rule: string; why: string }> = {
  Arguments: { rule: "arguments", why: "Arguments is JSONata's; use Parameters" },
  Output: { rule: "output", why: "Output is JSONata's; use ResultSelector, ResultPath and OutputPath" },
  Assign: { rule: "assign", why: "variables (Assign) are not supported" },
  Condition: { rule: "jsonata", why: "Condition is JSONata's; use a Variable with a comparator" },
  Items: { rule: "jsonata", why: "Items is JSONata's; use ItemsPath" },
  Credentials: { rule: "credentials", why: "a program runs with the platform's role only" },
  TimeoutSecondsPath: { rule: "path-timeouts", why: "use a literal TimeoutSeconds" },
  HeartbeatSecondsPath: { rule: "path-timeouts", why: "use a literal HeartbeatSeconds" },
  ItemReader: { rule: "item-reader", why: "a Map reads its items from the state input (ItemsPath), not from S3" },
  ItemBatcher: { rule: "distributed-map", why: "batching is Distributed Map's" },
  ResultWriter: { rule: "distributed-map", why: "ResultWriter is Distributed Map's" },
  ToleratedFailureCount: { rule: "distributed-map", why: "tolerated failures are Distributed Map's" },
  ToleratedFailureCountPath: { rule: "distributed-map", why: "tolerated failures are Distributed Map's" },
  ToleratedFailurePercentage: { rule: "distributed-map", why: "tolerated failures are Distributed Map's" },
  ToleratedFailurePercentagePath: { rule: "distributed-map", why: "tolerated failures are Distributed Map's" },
  Label: { rule: "distributed-map", why: "Label is Distributed Map's" },
};

export function isStateType(type: unknown): type is StateType {
  return typeof type === "string" && (STATE_TYPES as readonly string[]).includes(type);
}
