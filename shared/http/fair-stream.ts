import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * A streamed body as it is produced, but never more than `sliceMs` of it without letting the event loop take a
 * turn. An async iterable whose items are ready at once (a model's answer arriving in one network read, the
 * offline model's echo) is consumed in microtasks alone: the writes go out, but no timer, socket or other request
 * runs until it ends. One such answer of a few million frames held `npm start` for every tenant for 20–75 s in the
 * soak (docs/benchmarks.md §20).
 */
export const FAIR_SLICE_MS = 10;

export async function* fair<T>(items: AsyncIterable<T>, sliceMs = FAIR_SLICE_MS): AsyncGenerator<T> {
  let since = performance.now();
  for await (const item of items) {
    yield item;
    if (performance.now() - since >= sliceMs) {
      await nextTurn();
      since = performance.now();
    }
  }
}
