/**
 * How long a test waits for the stack to reach a state: a limit for a hang, not for speed. On an idle machine a
 * workflow of a few steps settles in 2–5 s; with the suite's four workers on two cores the same one took 22 s.
 */
export const SETTLE_MS = 45_000;

/** Reads until `done` holds or `ms` pass, and returns the last value read, so the test's expectation shows what it was. */
export async function readUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = SETTLE_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
