/**
 * How functions are grouped on the detail dashboards (`-c detailDashboards=true`, docs/operations.md): one area's (or
 * engine's) functions with the same timeout, at most `GROUP_MAX_FUNCTIONS` to a graph. CDK-free.
 */
export const GROUP_MAX_FUNCTIONS = 10;

/** The groups of `items` by their timeout, shortest timeout first, each cut into pieces of at most GROUP_MAX_FUNCTIONS. */
export function groupByTimeout<T>(items: readonly T[], timeoutMs: (item: T) => number): T[][] {
  const byTimeout = new Map<number, T[]>();
  for (const item of items) {
    const ms = timeoutMs(item);
    byTimeout.set(ms, [...(byTimeout.get(ms) ?? []), item]);
  }
  return [...byTimeout.entries()]
    .toSorted(([a], [b]) => a - b)
    .flatMap(([, members]) => Array.from({ length: Math.ceil(members.length / GROUP_MAX_FUNCTIONS) }, (_, i) => members.slice(i * GROUP_MAX_FUNCTIONS, (i + 1) * GROUP_MAX_FUNCTIONS)));
}
