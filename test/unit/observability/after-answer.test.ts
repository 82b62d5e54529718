import { afterEach, describe, expect, it, vi } from "vitest";
import { afterAnswer, answerFirst, bookkeepingSettled, invocationStartedAt } from "../../../shared/observability/after-answer.js";
import { logger } from "../../../shared/observability/logger.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe("answerFirst and afterAnswer", () => {
  it("starts no deferred write before the answer is settled, and ends the invocation only after them", async () => {
    const events: string[] = [];
    const answer = gate();
    const invocation = answerFirst("req-1", async () => {
      await afterAnswer("usage record", async () => void events.push("write"));
      events.push("queued");
      await answer.opened;
      events.push("answered");
      return "the answer";
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toStrictEqual(["queued"]);

    answer.open();

    expect(await invocation).toBe("the answer");
    expect(events).toStrictEqual(["queued", "answered", "write"]);
  });

  it("runs the deferred writes even when the answer is an error, and rethrows it", async () => {
    const write = vi.fn(async () => undefined);
    const invocation = answerFirst("req-2", async () => {
      await afterAnswer("usage record", write);
      throw new Error("upstream refused");
    });

    await expect(invocation).rejects.toThrow("upstream refused");
    expect(write).toHaveBeenCalledOnce();
  });

  it("runs a write at once outside an invocation (a batch line), and the caller waits for it", async () => {
    const events: string[] = [];
    await afterAnswer("usage record", async () => void events.push("write"));
    events.push("after");
    expect(events).toStrictEqual(["write", "after"]);
    expect(invocationStartedAt()).toBeUndefined();
  });

  it("retries a failed write and, when it keeps failing, logs what it was for and why, never its content", async () => {
    const errors = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    let attempts = 0;
    await answerFirst("req-3", async () => {
      await afterAnswer("month spend", async () => {
        attempts += 1;
        throw new Error("ProvisionedThroughputExceededException");
      });
    });

    expect(attempts).toBe(3);
    expect(errors).toHaveBeenCalledOnce();
    expect(errors.mock.calls[0]).toStrictEqual([
      "bookkeeping write lost after the answer",
      { what: "month spend", requestId: "req-3", attempts: 3, why: "Error: ProvisionedThroughputExceededException" },
    ]);
  });

  it("keeps a write that succeeds on its retry, logging nothing", async () => {
    const errors = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    let attempts = 0;
    await answerFirst("req-4", async () => {
      await afterAnswer("usage record", async () => {
        attempts += 1;
        if (attempts === 1) throw new Error("throttled");
      });
    });
    expect(attempts).toBe(2);
    expect(errors).not.toHaveBeenCalled();
  });

  it("knows when its invocation started (Server-Timing's origin)", async () => {
    const before = performance.now();
    const started = await answerFirst("req-5", async () => invocationStartedAt());
    expect(started).toBeGreaterThanOrEqual(before);
    expect(started).toBeLessThanOrEqual(performance.now());
  });
});

describe("bookkeepingSettled (the flush hook)", () => {
  it("resolves once every invocation's deferred writes are done", async () => {
    const write = gate();
    let written = false;
    void answerFirst("req-6", async () => {
      await afterAnswer("span", async () => {
        await write.opened;
        written = true;
      });
    });
    const settled = bookkeepingSettled();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toBe(false);

    write.open();
    await settled;

    expect(written).toBe(true);
  });

  it("with answeredOnly, does not wait for a call still answering (a long stream), only for answered ones", async () => {
    const answer = gate();
    const invocation = answerFirst("req-7", async () => answer.opened);

    await bookkeepingSettled({ answeredOnly: true });

    answer.open();
    await invocation;
  });

  it("counts a call as answered once its stream says so, before its chain settles", async () => {
    const chain = gate();
    const streamEnded = gate();
    let writes = 0;
    const invocation = answerFirst("req-8", async (answered) => {
      await afterAnswer("usage record", async () => void (writes += 1));
      answered();
      streamEnded.open();
      await chain.opened;
    });
    await streamEnded.opened;
    const settled = bookkeepingSettled({ answeredOnly: true });
    chain.open();
    await settled;
    expect(writes).toBe(1);
    await invocation;
  });
});
