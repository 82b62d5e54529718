import type { ValidationIssue } from "../errors.js";

/**
 * A workflow-level retry policy (decision 20): `definition.retry_policy`, in Temporal's terms. A run that
 * FAILS while attempts remain is retried as a new run of the same execution, with the same input, after
 * `initial_interval_seconds × backoff_coefficient^(attempt-1)` (at most `maximum_interval_seconds`).
 */
export interface RetryPolicy {
  /** Attempts in all, the first run included (1 = no retry). */
  maximum_attempts: number;
  initial_interval_seconds: number;
  backoff_coefficient: number;
  maximum_interval_seconds: number;
  /** Failure types (a Fail state's Error, a task's error name) that are never retried. */
  non_retryable_error_types: string[];
}

/** Attempts beyond this are refused at registration: each is a run, an execution and a timer. */
export const MAX_RETRY_ATTEMPTS = 100;
/** One day: a longer wait is a schedule, not a retry. */
export const MAX_RETRY_INTERVAL_SECONDS = 86_400;

const FIELDS = ["maximum_attempts", "initial_interval_seconds", "backoff_coefficient", "maximum_interval_seconds", "non_retryable_error_types"];

/** Why `value` is not a retry policy (FastAPI-style issues under `at`); empty when it is, or when it is absent. */
export function retryPolicyIssues(value: unknown, at: readonly (string | number)[]): ValidationIssue[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== "object" || Array.isArray(value)) return [{ loc: [...at], msg: "Input should be a valid dictionary", type: "dict_type" }];
  const policy = value as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  const number = (field: string, min: number, max: number, integer = false) => {
    const v = policy[field];
    if (v === undefined || v === null) return;
    if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v))) issues.push({ loc: [...at, field], msg: `Input should be a valid ${integer ? "integer" : "number"}`, type: integer ? "int_type" : "float_type" });
    else if (v < min || v > max) issues.push({ loc: [...at, field], msg: `Input should be between ${min} and ${max}`, type: "value_error" });
  };
  for (const key of Object.keys(policy)) if (!FIELDS.includes(key)) issues.push({ loc: [...at, key], msg: "Extra inputs are not permitted", type: "extra_forbidden" });
  if (policy.maximum_attempts === undefined || policy.maximum_attempts === null) issues.push({ loc: [...at, "maximum_attempts"], msg: "Field required", type: "missing" });
  number("maximum_attempts", 1, MAX_RETRY_ATTEMPTS, true);
  number("initial_interval_seconds", 0, MAX_RETRY_INTERVAL_SECONDS);
  number("backoff_coefficient", 1, 100);
  number("maximum_interval_seconds", 0, MAX_RETRY_INTERVAL_SECONDS);
  const types = policy.non_retryable_error_types;
  if (types !== undefined && types !== null && (!Array.isArray(types) || types.some((t) => typeof t !== "string"))) {
    issues.push({ loc: [...at, "non_retryable_error_types"], msg: "Input should be a valid list of strings", type: "list_type" });
  }
  return issues;
}

/** The policy of a definition with its defaults, or undefined when it has none (or an unusable one, stored before the rule). */
export function retryPolicyOf(definition: { retry_policy?: unknown } | undefined): RetryPolicy | undefined {
  const raw = definition?.retry_policy;
  if (raw === undefined || raw === null || retryPolicyIssues(raw, []).length) return undefined;
  const policy = raw as Partial<RetryPolicy>;
  const initial = policy.initial_interval_seconds ?? 1;
  return {
    maximum_attempts: policy.maximum_attempts!,
    initial_interval_seconds: initial,
    backoff_coefficient: policy.backoff_coefficient ?? 2,
    maximum_interval_seconds: policy.maximum_interval_seconds ?? Math.min(MAX_RETRY_INTERVAL_SECONDS, Math.max(initial, 1) * 100),
    non_retryable_error_types: policy.non_retryable_error_types ?? [],
  };
}

/**
 * Whether a run that failed on `attempt` with a failure of `type` is retried, and after how many seconds;
 * undefined when it is not (no attempts left, or a non-retryable type).
 */
export function retryDelaySeconds(policy: RetryPolicy, attempt: number, type: string | undefined): number | undefined {
  if (attempt >= policy.maximum_attempts) return undefined;
  if (type && policy.non_retryable_error_types.includes(type)) return undefined;
  return Math.min(policy.maximum_interval_seconds, policy.initial_interval_seconds * policy.backoff_coefficient ** (attempt - 1));
}
