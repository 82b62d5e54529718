import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError, UpstreamError } from "../../../../shared/domain/errors.js";
import { isUpstreamFailure, retryDelayMs, type RetryPolicy } from "../../../../shared/domain/routing/retry.js";

const policy: RetryPolicy = { attempts: 3, baseMs: 200, maxMs: 5_000 };

describe("isUpstreamFailure", () => {
  it("is the upstream's for 408, 429 and every 5xx, the caller's for any other 4xx and for anything not from an upstream", () => {
    for (const status of [408, 429, 500, 502, 503, 504, 529]) expect(isUpstreamFailure(new UpstreamError(status, "x")), String(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 413, 422]) expect(isUpstreamFailure(new UpstreamError(status, "x")), String(status)).toBe(false);
    expect(isUpstreamFailure(new ApiError(503, "server_error", "ours", "internal_error"))).toBe(false);
    expect(isUpstreamFailure(new Error("boom"))).toBe(false);
  });
});

describe("retryDelayMs", () => {
  it("waits a jittered share of a doubling ceiling, never past maxMs, and stops after the policy's tries", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.double({ min: 0, max: 0.999_999, noNaN: true }), (attempt, draw) => {
        const many: RetryPolicy = { attempts: 13, baseMs: 200, maxMs: 5_000 };
        const wait = retryDelayMs(new UpstreamError(503, "down"), attempt, many, () => draw)!;
        expect(wait).toBeGreaterThanOrEqual(0);
        expect(wait).toBeLessThanOrEqual(Math.min(5_000, 200 * 2 ** (attempt - 1)));
      }),
    );
    expect(retryDelayMs(new UpstreamError(503, "down"), 3, policy)).toBeUndefined();
  });

  it("honours Retry-After as the least wait, with at most a tenth more", () => {
    const waits = [0, 0.5, 0.999].map((draw) => retryDelayMs(new UpstreamError(429, "slow down", 2), 1, policy, () => draw));

    expect(waits).toStrictEqual([2_000, 2_100, 2_199.8]);
  });

  it("leaves a deployment whose upstream asks for a longer wait than maxMs, so another may answer now", () => {
    expect(retryDelayMs(new UpstreamError(429, "slow down", 60), 1, policy)).toBeUndefined();
  });
});
