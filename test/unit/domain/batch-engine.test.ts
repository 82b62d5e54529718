import { afterEach, describe, expect, it, vi } from "vitest";
import { callerOf, failureMessage, finalStatusOf, resultFileId, withRetries } from "../../../shared/domain/batch-engine.js";
import { forEachWhile, mapBounded } from "../../../shared/domain/concurrency.js";
import { UpstreamError } from "../../../shared/inference/types.js";
import { Uuid } from "../../../shared/schemas/common.js";
import { aBatchJob } from "../../support/batch-table.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const NOW = 1_800_000_000;

describe("finalStatusOf", () => {
  const running = aBatchJob({ status: "RUNNING", deadline: NOW + 10, totalRequests: 5, completedRequests: 5 });

  it("is SUCCESS for a job that ran, whatever failed within it", () => {
    expect(finalStatusOf({ ...running, completedRequests: 5 }, NOW)).toBe("SUCCESS");
  });

  it("is TIMEOUT_EXCEEDED once the deadline passed with requests not completed", () => {
    expect(finalStatusOf({ ...running, deadline: NOW - 1, completedRequests: 4 }, NOW)).toBe("TIMEOUT_EXCEEDED");
  });

  it("is SUCCESS past the deadline when every request completed", () => {
    expect(finalStatusOf({ ...running, deadline: NOW - 1 }, NOW)).toBe("SUCCESS");
  });

  it("is CANCELLED when cancellation was requested", () => {
    expect(finalStatusOf({ ...running, status: "CANCELLATION_REQUESTED", deadline: NOW - 1, completedRequests: 0 }, NOW)).toBe("CANCELLED");
  });

  it("refuses a job that never started", () => {
    expect(() => finalStatusOf({ ...running, status: "QUEUED" }, NOW)).toThrow("cannot be finished from status QUEUED");
  });
});

describe("failureMessage", () => {
  const lambda = (errorType: string, errorMessage: string) => ({
    Error: errorType,
    Cause: JSON.stringify({ errorType, errorMessage, trace: [`${errorType}: ${errorMessage}`, "    at start (/var/task/index.mjs:1:1)"] }),
  });

  it("keeps the message of an error written for the job's owner, without the trace", () => {
    expect(failureMessage(lambda("BatchInputError", "Line 3 of file 'f' is not valid JSON"))).toBe("Line 3 of file 'f' is not valid JSON");
    expect(failureMessage(lambda("NotFound", "No file with id 'f' exists in this workspace"))).toBe("No file with id 'f' exists in this workspace");
  });

  it("takes a plain-text cause as the message (the local runner's shape)", () => {
    expect(failureMessage({ Error: "BatchJobGone", Cause: "The batch job 'j' no longer exists\n    at x (y.js:1:1)" })).toBe("The batch job 'j' no longer exists");
  });

  it("hides what an internal error says", () => {
    const message = failureMessage(lambda("TypeError", "Cannot read properties of undefined (reading 'key') at /var/task/secret.js"));
    expect(message).toBe("The batch job could not run because of an internal error");
  });

  it("names the Step Functions failures it knows", () => {
    expect(failureMessage({ Error: "States.Timeout", Cause: "" })).toBe("A step of the batch job ran out of time before it finished");
    expect(failureMessage(lambda("Sandbox.Timedout", "Task timed out after 900.00 seconds"))).toBe("A step of the batch job ran out of time before it finished");
    expect(failureMessage({ Error: "States.ItemReaderFailed", Cause: "Access denied on s3://bucket/key" })).toBe("The batch job's list of request chunks could not be read");
  });

  it("has a message even with no failure at all", () => {
    expect(failureMessage(undefined)).toBe("The batch job could not run because of an internal error");
  });

  it("bounds the length of a message", () => {
    expect(failureMessage(lambda("BadRequest", "x".repeat(5000))).length).toBeLessThanOrEqual(1000);
  });
});

describe("resultFileId", () => {
  it("is a valid UUID that depends only on the job and the kind of file", () => {
    const output = resultFileId("job-1", "output");
    expect(Uuid.safeParse(output).success).toBe(true);
    expect(resultFileId("job-1", "output")).toBe(output);
    expect(resultFileId("job-1", "error")).not.toBe(output);
    expect(resultFileId("job-2", "output")).not.toBe(output);
  });
});

describe("callerOf", () => {
  it("calls as the job's owner, with no roles and no admin rights", () => {
    const job = aBatchJob();
    expect(callerOf(job)).toEqual({ organization: job.organization, workspace: job.workspace, principal: job.owner, principalType: "user", roles: [], admin: false, keyId: "batch" });
  });
});

describe("withRetries", () => {
  const policy = { attempts: 4, baseMs: 1000, maxMs: 30_000 };

  it("backs off exponentially on throttling and returns the first success", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0.999999);
    const call = vi.fn().mockRejectedValueOnce(new UpstreamError(429, "slow")).mockRejectedValueOnce(new UpstreamError(503, "down")).mockResolvedValue("ok");

    const result = withRetries(call, policy);
    await vi.advanceTimersByTimeAsync(990);
    expect(call).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(call).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1980);
    expect(call).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(20);

    await expect(result).resolves.toBe("ok");
    expect(call).toHaveBeenCalledTimes(3);
  });

  it("waits as long as the upstream's Retry-After says", async () => {
    vi.useFakeTimers();
    const call = vi.fn().mockRejectedValueOnce(new UpstreamError(429, "slow", 7)).mockResolvedValue("ok");

    const result = withRetries(call, policy);
    await vi.advanceTimersByTimeAsync(6999);
    expect(call).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1001);

    await expect(result).resolves.toBe("ok");
  });

  it("gives up after the last attempt with the last error", async () => {
    const call = vi.fn().mockRejectedValue(new UpstreamError(429, "slow"));

    await expect(withRetries(call, { attempts: 3, baseMs: 1, maxMs: 2 })).rejects.toMatchObject({ status: 429 });
    expect(call).toHaveBeenCalledTimes(3);
  });

  it("does not retry what throttling or an outage did not cause", async () => {
    for (const error of [new UpstreamError(400, "bad"), new UpstreamError(500, "broken"), new Error("bug")]) {
      const call = vi.fn().mockRejectedValue(error);
      await expect(withRetries(call, { attempts: 3, baseMs: 1, maxMs: 2 })).rejects.toBe(error);
      expect(call).toHaveBeenCalledTimes(1);
    }
  });
});

/** A task that finishes when told to. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("forEachWhile", () => {
  it("keeps at most `limit` items in flight", async () => {
    let inFlight = 0;
    let most = 0;
    await forEachWhile(Array.from({ length: 20 }, (_, i) => i), 3, async () => true, async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
    });
    expect(most).toBe(3);
  });

  it("stops starting items once told to, lets the started ones finish, and returns how many started", async () => {
    const finished: number[] = [];
    let asked = 0;
    const started = await forEachWhile([0, 1, 2, 3, 4, 5], 2, async () => ++asked <= 3, async (item) => {
      await new Promise((resolve) => setTimeout(resolve, 5 - item));
      finished.push(item);
    });
    expect(started).toBe(3);
    expect(finished.sort()).toEqual([0, 1, 2]);
  });

  it("throws the first failure after the items in flight finish", async () => {
    const slow = gate();
    let slowDone = false;
    const run = forEachWhile([0, 1, 2], 2, async () => true, async (item) => {
      if (item === 0) {
        await slow.opened;
        slowDone = true;
      }
      if (item === 1) throw new Error("boom");
    });
    setTimeout(slow.open, 5);
    await expect(run).rejects.toThrow("boom");
    expect(slowDone).toBe(true);
  });
});

describe("mapBounded", () => {
  it("keeps the order of the results", async () => {
    expect(await mapBounded([30, 10, 20], 3, async (ms) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)))).toEqual([30, 10, 20]);
  });
});
