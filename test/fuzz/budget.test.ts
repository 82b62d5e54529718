/** The fuzz ring's budget and shares (docs/decisions/0047-test-suite-in-parallel.md): new routes cost runs, not minutes. */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routes } from "../../functions/routes.js";
import { routeKey } from "../../shared/http/policy.js";
import { RING_REQUEST_BUDGET, RING_RUNS_PER_ROUTE, ringSettings, runsWithinBudget } from "../support/fuzz-ring.js";
import { FUZZ_SHARES, fuzzShare } from "../support/fuzz-suite.js";

describe("the fuzz ring's request budget", () => {
  it("runs 20 requests a route for the table of 207 routes, and 15 once 60 more are added", () => {
    expect(runsWithinBudget(207)).toBe(20);
    expect(runsWithinBudget(267)).toBe(15);
  });

  it("keeps the whole ring within the budget until the floor of runs a route is reached", () => {
    for (let count = 1; count * RING_RUNS_PER_ROUTE.min <= RING_REQUEST_BUDGET; count += 1) {
      const runs = runsWithinBudget(count);
      expect(runs * count).toBeLessThanOrEqual(RING_REQUEST_BUDGET);
      expect(runs).toBeGreaterThanOrEqual(RING_RUNS_PER_ROUTE.min);
      expect(runs).toBeLessThanOrEqual(RING_RUNS_PER_ROUTE.max);
    }
    expect(runsWithinBudget(10_000)).toBe(RING_RUNS_PER_ROUTE.min);
  });

  it("lets FUZZ_RUNS replace the budget's share (npm run fuzz -- --runs N)", () => {
    const before = process.env.FUZZ_RUNS;
    process.env.FUZZ_RUNS = "500";
    try {
      expect(ringSettings(routes.length).runs).toBe(500);
    } finally {
      if (before === undefined) delete process.env.FUZZ_RUNS;
      else process.env.FUZZ_RUNS = before;
    }
  });
});

describe("the fuzz ring's shares", () => {
  it("give every route to exactly one share file", () => {
    const shared = Array.from({ length: FUZZ_SHARES }, (_, index) => fuzzShare(index).map(routeKey)).flat();
    expect(shared.toSorted()).toEqual(routes.map(routeKey).toSorted());
    const files = readdirSync(import.meta.dirname).filter((name) => /^routes-\d+\.fuzz\.test\.ts$/.test(name));
    expect(files).toHaveLength(FUZZ_SHARES);
  });
});
