/** Runs `work` over `items` with at most `limit` in flight, keeping the order of the results. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Starts `work` for the items in order, at most `limit` in flight, and stops starting new ones as soon
 * as `proceed` says no (asked before each start). What started always finishes, so the items worked on
 * are a prefix of `items`; returns its length. The first failure stops the loop and is thrown once the
 * items in flight have finished.
 */
export async function forEachWhile<T>(
  items: readonly T[],
  limit: number,
  proceed: () => Promise<boolean>,
  work: (item: T, index: number) => Promise<void>,
): Promise<number> {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let started = 0;
  try {
    for (; started < items.length && !failure; started += 1) {
      while (running.size >= limit) await Promise.race(running);
      if (failure || !(await proceed())) break;
      const index = started;
      const run: Promise<void> = work(items[index]!, index)
        .catch((error: unknown) => void (failure ??= { error }))
        .finally(() => running.delete(run));
      running.add(run);
    }
  } finally {
    await Promise.allSettled(running);
  }
  if (failure) throw failure.error;
  return started;
}
