/**
 * The CloudWatch namespace of the deployment's signals (infra/function-signals.ts, docs/operations.md "Alarms"): set on
 * every function in the cloud; unset locally, where nothing is published.
 */
export const SIGNALS_NAMESPACE_ENV = "SIGNALS_NAMESPACE";

/**
 * The API area a route function serves (`functions/<area>/`), set beside the namespace on route functions in the
 * cloud: the overview's per-area graphs group requests by it.
 */
export const SIGNALS_AREA_ENV = "SIGNALS_AREA";

/** Signals the code counts itself, as embedded-metric-format lines (docs/operations.md "Alarms"). */
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

/**
 * The embedded-metric-format fields of a request's own log line (shared/http/route.ts `accessLog`): its latency
 * (whose sample count is the area's requests) and whether it answered 5xx, by area. None where no namespace or area
 * is set (locally, and on functions that serve no route).
 */
export function requestMetricFields(latencyMs: number | undefined, status: number | undefined): Record<string, unknown> {
  const namespace = process.env[SIGNALS_NAMESPACE_ENV];
  const area = process.env[SIGNALS_AREA_ENV];
  if (!namespace || !area || latencyMs === undefined) return {};
  return {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [["area"]], Metrics: [{ Name: "Latency", Unit: "Milliseconds" }, { Name: "ServerErrors", Unit: "Count" }] }],
    },
    area,
    Latency: latencyMs,
    ServerErrors: (status ?? 500) >= 500 ? 1 : 0,
  };
}
