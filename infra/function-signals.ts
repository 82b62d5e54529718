/**
 * The deployment's signals (docs/operations.md "Signals", decision 0066): what every function's log says about it,
 * turned into a few deployment-wide metrics an alarm each can watch, instead of alarms per function group. CDK-free,
 * so the stacks (infra/operations.ts) and the cost model (infra/cost-resources.ts) count the same metrics.
 *
 * Lambda writes one `platform.report` line per invocation in the JSON log format (infra/constructs/route-function.ts),
 * with the invocation's `status` ("success", "error", "failure", "timeout") and its duration. One metric filter per
 * function publishes `FunctionReports`, dimension `status`, for the lines that matter: every failed invocation, and a
 * successful one that ran past SLOW_SHARE of its timeout. Nothing is published while nothing goes wrong, so the
 * metrics cost nothing at rest (custom metrics are billed for the hours they are published in).
 */
import { TABLE_THROTTLES } from "../shared/observability/signals.js";

/** An invocation that ran past this share of its function's timeout counts as slow. */
export const SLOW_SHARE = 0.8;

export const FUNCTION_REPORTS = "FunctionReports";

/** The `status` values of a failed invocation (Lambda's Telemetry API schema of `platform.report`). */
export const FAILED_STATUSES = ["error", "failure", "timeout"] as const;

/** A slow invocation is a successful one that the filter let through. */
export const SLOW_STATUS = "success";

export { TABLE_THROTTLES };

/** The deployment's own namespace: two stages in one account keep their signals apart. */
export const signalsNamespace = (prefix: string) => `${prefix}/Signals`;

/** The metric filter pattern of a function with this timeout: failed invocations, and slow ones. */
export function reportFilterPattern(timeoutMs: number): string {
  return `{ ($.type = "platform.report") && (($.record.status != "${SLOW_STATUS}") || ($.record.metrics.durationMs > ${slowThresholdMs(timeoutMs)})) }`;
}

export const slowThresholdMs = (timeoutMs: number) => Math.round(timeoutMs * SLOW_SHARE);

/** The custom metrics the signals publish (when something happens): FunctionReports by status, and TableThrottles. */
export const SIGNAL_METRICS = FAILED_STATUSES.length + 1 + 1;
