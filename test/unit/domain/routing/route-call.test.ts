import { describe, expect, it } from "vitest";
import { BadRequest, UpstreamError } from "../../../../shared/domain/errors.js";
import { Balancer } from "../../../../shared/domain/routing/balance.js";
import { Cooldowns } from "../../../../shared/domain/routing/cooldown.js";
import { PromptTooLong, routeCall, RoutingExhausted, type RoutedDeployment, type RoutedModel, type RouteDeps } from "../../../../shared/domain/routing/route-call.js";

type Model = RoutedModel<RoutedDeployment>;

const model = (name: string, deployments: string[], extra: Partial<Model> = {}): Model => ({
  name,
  deployments: deployments.map((id) => ({ id, weight: 1 })),
  retry: { attempts: 2, baseMs: 100, maxMs: 1_000 },
  ...extra,
});

/** The router's dependencies over a small catalog, a clock that sleeping moves, and a record of what was looked up. */
function routing(catalog: Model[], cooldownPolicy = { failures: 3, windowMs: 10_000, cooldownMs: 30_000 }) {
  const clock = { now: 1_000_000 };
  const slept: number[] = [];
  const looked: string[] = [];
  const balancers = new Map<string, Balancer<RoutedDeployment>>();
  const changes: string[] = [];
  const deps: RouteDeps<RoutedDeployment, Model> = {
    modelNamed: async (name) => (looked.push(name), catalog.find((m) => m.name === name)),
    balancerOf: (m) => balancers.get(m.name) ?? balancers.set(m.name, new Balancer(m.deployments)).get(m.name)!,
    cooldowns: new Cooldowns(cooldownPolicy, () => clock.now),
    changed: (deployment, change) => changes.push(`${deployment.id} ${"opened" in change ? "opened" : "closed"}`),
    sleep: async (ms) => {
      slept.push(ms);
      clock.now += ms;
    },
    now: () => clock.now,
  };
  return { deps, clock, slept, looked, changes, named: (name: string) => catalog.find((m) => m.name === name)! };
}

/** A call whose deployments answer from a script: an error to throw, or a value. */
function scripted(script: Record<string, (UpstreamError | BadRequest | string)[]>) {
  const calls: string[] = [];
  const call = async (m: Model, d: RoutedDeployment) => {
    calls.push(`${m.name}@${d.id}`);
    const next = script[d.id]?.shift() ?? `answer of ${d.id}`;
    if (next instanceof Error) throw next;
    return next;
  };
  return { calls, call };
}

const throttled = () => new UpstreamError(429, "The upstream is rate limiting requests");
const down = () => new UpstreamError(502, "Could not reach the upstream (ECONNREFUSED)");

describe("routeCall", () => {
  it("answers a healthy call from the first deployment, with one attempt and no fallback read", async () => {
    const { deps, looked, slept } = routing([model("small", ["a", "b"], { fallbacks: ["large"] }), model("large", ["c"])]);
    const { calls, call } = scripted({});

    const routed = await routeCall(model("small", ["a", "b"], { fallbacks: ["large"] }), 10, deps, call);

    expect(routed).toMatchObject({ value: "answer of a", model: { name: "small" }, deployment: { id: "a" }, attempts: [{ model: "small", deployment: "a", outcome: "ok" }] });
    expect(calls).toStrictEqual(["small@a"]);
    expect(looked).toStrictEqual([]);
    expect(slept).toStrictEqual([]);
  });

  it("tries a throttled deployment again after a backoff, honouring Retry-After", async () => {
    const { deps, slept, named } = routing([model("small", ["a"])]);
    const { calls, call } = scripted({ a: [new UpstreamError(429, "slow down", 0.5)] });

    const routed = await routeCall(named("small"), undefined, deps, call);

    expect(routed.value).toBe("answer of a");
    expect(calls).toStrictEqual(["small@a", "small@a"]);
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThanOrEqual(500);
    expect(slept[0]).toBeLessThanOrEqual(550);
    expect(routed.attempts.map((a) => [a.outcome, a.status])).toStrictEqual([["failed", 429], ["ok", undefined]]);
  });

  it("moves to the model's next deployment when one has had its tries", async () => {
    const { deps, named } = routing([model("small", ["a", "b"])]);
    const { calls, call } = scripted({ a: [down(), down()] });

    const routed = await routeCall(named("small"), undefined, deps, call);

    expect(calls).toStrictEqual(["small@a", "small@a", "small@b"]);
    expect(routed).toMatchObject({ value: "answer of b", deployment: { id: "b" } });
  });

  it("leaves a deployment at once when the upstream asks for a longer wait than the policy's", async () => {
    const { deps, slept, named } = routing([model("small", ["a", "b"])]);
    const { calls, call } = scripted({ a: [new UpstreamError(429, "come back in a minute", 60)] });

    await routeCall(named("small"), undefined, deps, call);

    expect(calls).toStrictEqual(["small@a", "small@b"]);
    expect(slept).toStrictEqual([]);
  });

  it("neither retries nor falls back on the caller's own mistake", async () => {
    const { deps, looked, named } = routing([model("small", ["a", "b"], { fallbacks: ["large"] }), model("large", ["c"])]);
    const refused = new UpstreamError(400, "messages: field required");
    const { calls, call } = scripted({ a: [refused] });

    await expect(routeCall(named("small"), undefined, deps, call)).rejects.toBe(refused);
    expect(calls).toStrictEqual(["small@a"]);
    expect(looked).toStrictEqual([]);
  });

  it("falls back to the next model once every deployment of the first failed, and says which model served", async () => {
    const { deps, looked, named } = routing([model("small", ["a"], { fallbacks: ["large"] }), model("large", ["c"])]);
    const { calls, call } = scripted({ a: [down(), down()] });

    const routed = await routeCall(named("small"), undefined, deps, call);

    expect(calls).toStrictEqual(["small@a", "small@a", "large@c"]);
    expect(looked).toStrictEqual(["large"]);
    expect(routed).toMatchObject({ value: "answer of c", model: { name: "large" }, deployment: { id: "c" } });
    expect(routed.attempts.map((a) => `${a.model}@${a.deployment} ${a.outcome}`)).toStrictEqual(["small@a failed", "small@a failed", "large@c ok"]);
  });

  it("answers the last upstream failure, with every attempt, when nothing served", async () => {
    const { deps, named } = routing([model("small", ["a"], { fallbacks: ["large"] }), model("large", ["c"])]);
    const { call } = scripted({ a: [down(), down()], c: [throttled(), throttled()] });

    const failure = await routeCall(named("small"), undefined, deps, call).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(RoutingExhausted);
    expect(failure).toMatchObject({ status: 429, message: expect.stringMatching(/after 4 attempts/) });
    expect((failure as RoutingExhausted).attempts).toHaveLength(4);
  });

  it("skips a deployment whose breaker opened, without trying it, until its cooldown is over", async () => {
    const { deps, clock, changes, named } = routing([model("small", ["a", "b"])], { failures: 2, windowMs: 10_000, cooldownMs: 30_000 });
    const { calls, call } = scripted({ a: [down(), down()] });

    await routeCall(named("small"), undefined, deps, call);
    expect(changes).toStrictEqual(["a opened"]);
    calls.length = 0;
    for (let i = 0; i < 4; i += 1) await routeCall(named("small"), undefined, deps, call);
    expect(calls).toStrictEqual(["small@b", "small@b", "small@b", "small@b"]);

    clock.now += 30_000;
    calls.length = 0;
    await routeCall(named("small"), undefined, deps, call);
    await routeCall(named("small"), undefined, deps, call);
    // Half open: one call let through to a, whose success closes its breaker; then a and b share again.
    expect(calls.filter((c) => c === "small@a")).toHaveLength(1);
    expect(changes).toStrictEqual(["a opened", "a closed"]);
  });

  it("sends a prompt too long for the first model to the first fallback that holds it", async () => {
    const catalog = [model("small", ["a"], { contextLength: 1_000, fallbacks: ["medium", "large"] }), model("medium", ["m"], { contextLength: 4_000 }), model("large", ["l"], { contextLength: 100_000 })];
    const { deps, named } = routing(catalog);
    const { calls, call } = scripted({});

    const routed = await routeCall(named("small"), 10_000, deps, call);

    expect(calls).toStrictEqual(["large@l"]);
    expect(routed.model.name).toBe("large");
    await expect(routeCall(named("small"), 1_000_000, deps, call)).rejects.toBeInstanceOf(PromptTooLong);
    await expect(routeCall(named("small"), 1_000_000, deps, call)).rejects.toMatchObject({ status: 400, code: "context_length_exceeded" });
  });

  it("stops at once when the caller went away", async () => {
    const { deps, named } = routing([model("small", ["a", "b"])]);
    const gone = new AbortController();
    deps.signal = gone.signal;
    const { calls, call } = scripted({ a: [down()] });
    gone.abort();

    await expect(routeCall(named("small"), undefined, deps, call)).rejects.toBeInstanceOf(UpstreamError);
    expect(calls).toStrictEqual(["small@a"]);
  });
});

describe("routeCall with nowhere else to go", () => {
  it("never skips a model's only deployment when it has no fallbacks: the call is tried, not refused", async () => {
    const { deps, named } = routing([model("small", ["a"])], { failures: 2, windowMs: 10_000, cooldownMs: 30_000 });
    const { calls, call } = scripted({ a: [down(), down()] });

    await expect(routeCall(named("small"), undefined, deps, call)).rejects.toMatchObject({ status: 502 });
    const later = await routeCall(named("small"), undefined, deps, call);

    expect(later.value).toBe("answer of a");
    expect(calls).toStrictEqual(["small@a", "small@a", "small@a"]);
  });

  it("keeps trying such a deployment as its retries allow, however often it failed before (it has no breaker)", async () => {
    const { deps, changes, named } = routing([model("small", ["a"])], { failures: 2, windowMs: 10_000, cooldownMs: 30_000 });
    const { calls, call } = scripted({ a: [down(), down(), down(), down(), down(), down()] });

    for (let i = 0; i < 3; i += 1) await expect(routeCall(named("small"), undefined, deps, call)).rejects.toMatchObject({ status: 502, message: expect.stringMatching(/after 2 attempts/) });

    expect(calls).toHaveLength(6);
    expect(changes).toStrictEqual([]);
  });
});

describe("routeCall and a deployment that refuses our credentials", () => {
  it("does not try it again, but tries the model's other deployments", async () => {
    const { deps, slept, named } = routing([model("small", ["a", "b"])]);
    const { calls, call } = scripted({ a: [new UpstreamError(502, "The upstream refused our credentials (HTTP 401)", undefined, false)] });

    const routed = await routeCall(named("small"), undefined, deps, call);

    expect(calls).toStrictEqual(["small@a", "small@b"]);
    expect(slept).toStrictEqual([]);
    expect(routed.value).toBe("answer of b");
  });
});
