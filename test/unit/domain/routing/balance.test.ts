import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Balancer, type Balanced } from "../../../../shared/domain/routing/balance.js";

const counts = (picks: (Balanced | undefined)[]) => picks.reduce<Record<string, number>>((out, d) => ((out[d!.id] = (out[d!.id] ?? 0) + 1), out), {});

describe("Balancer, weighted round robin", () => {
  it("gives every deployment its weight's share of any whole round, interleaved", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 4 }), (weights, rounds) => {
        const balancer = new Balancer(weights.map((weight, i) => ({ id: `d${i}`, weight })));
        const total = weights.reduce((a, b) => a + b, 0);
        const picked = counts(Array.from({ length: total * rounds }, () => balancer.pick()));
        weights.forEach((weight, i) => expect(picked[`d${i}`]).toBe(weight * rounds));
      }),
    );
    const balancer = new Balancer([{ id: "a", weight: 2 }, { id: "b", weight: 1 }]);
    expect(Array.from({ length: 6 }, () => balancer.pick()!.id).join("")).toBe("abaaba");
  });

  it("passes over a deployment the caller excludes, one at its limit of calls in flight, and one already tried", () => {
    const balancer = new Balancer([{ id: "a", weight: 1, maxConcurrent: 1 }, { id: "b", weight: 1 }, { id: "c", weight: 1 }]);

    balancer.begin("a");
    const picks = Array.from({ length: 4 }, () => balancer.pick((id) => id !== "c")!.id);
    expect(picks).toStrictEqual(["b", "b", "b", "b"]);
    expect(balancer.pick(() => true, new Set(["b", "c"]))).toBeUndefined();
    balancer.end("a");
    expect(balancer.pick(() => true, new Set(["b", "c"]))?.id).toBe("a");
  });
});

describe("Balancer, least busy", () => {
  it("sends the call where the fewest are in flight for the weight, the first listed on a tie", () => {
    const balancer = new Balancer([{ id: "a", weight: 1 }, { id: "b", weight: 2 }], "least-busy");

    balancer.begin("a");
    expect(balancer.pick()?.id).toBe("b");
    balancer.begin("b");
    expect(balancer.pick()?.id).toBe("b");
    balancer.begin("b");
    expect(balancer.pick()?.id).toBe("a");
    balancer.begin("b");
    expect(balancer.pick()?.id).toBe("a");
    expect(balancer.busy("b")).toBe(3);
  });
});
