import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { sleep } from "../../../../shared/services/workflows/workers.js";

describe("the worker poll's backoff sleep", () => {
  it("leaves no abort listener on the request's signal once a step is over (a long poll takes ~40 steps)", async () => {
    const request = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      for (let step = 0; step < 15; step++) await sleep(1, request.signal);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }

    expect(getEventListeners(request.signal, "abort")).toHaveLength(0);
    expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
  });

  it("still ends at once when the client goes away", async () => {
    const request = new AbortController();
    const started = Date.now();
    const slept = sleep(10_000, request.signal);

    request.abort();
    await slept;

    expect(Date.now() - started).toBeLessThan(1000);
    expect(getEventListeners(request.signal, "abort")).toHaveLength(0);
  });
});
