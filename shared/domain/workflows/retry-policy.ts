import { MAX_RETRY_INTERVAL_SECONDS } from "../../schemas/workers.js";

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


/**
 * The policy of a definition with its defaults, or undefined when it has none. Registration checks it
 * (`retry_policy` in the worker protocol's WorkflowCodeDefinition schema).
 */
export function retryPolicyOf(definition: { retry_policy?: Partial<RetryPolicy> | null } | undefined): RetryPolicy | undefined {
  const policy = definition?.retry_policy;
  if (!policy || typeof policy.maximum_attempts !== "number") return undefined;
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
