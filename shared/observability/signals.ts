/**
 * The CloudWatch namespace of the deployment's signals (infra/function-signals.ts, docs/operations.md "Alarms"): set on
 * every function in the cloud; unset locally, where nothing is published.
 */
export const SIGNALS_NAMESPACE_ENV = "SIGNALS_NAMESPACE";

/** Signals the code counts itself, as embedded-metric-format lines (docs/operations.md "Signals"). */
export const TABLE_THROTTLES = { metric: "TableThrottles", dimensions: { Store: "dynamodb" } } as const;

type Signal = typeof TABLE_THROTTLES;

/**
 * Counts one occurrence of a signal: a line in CloudWatch's embedded metric format on stdout, which CloudWatch Logs
 * turns into a metric with no filter or API call, whatever the log level. Locally (no namespace set) it does nothing.
 */
export function countSignal(signal: Signal, write: (line: string) => void = (line) => process.stdout.write(line)): void {
  const namespace = process.env[SIGNALS_NAMESPACE_ENV];
  if (!namespace) return;
  const record = {
    _aws: { Timestamp: Date.now(), CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [Object.keys(signal.dimensions)], Metrics: [{ Name: signal.metric, Unit: "Count" }] }] },
    ...signal.dimensions,
    [signal.metric]: 1,
  };
  write(`${JSON.stringify(record)}\n`);
}
