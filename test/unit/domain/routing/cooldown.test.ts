import { describe, expect, it } from "vitest";
import { Cooldowns } from "../../../../shared/domain/routing/cooldown.js";

function clocked() {
  const clock = { now: 1_000_000 };
  const cooldowns = new Cooldowns({ failures: 3, windowMs: 10_000, cooldownMs: 30_000 }, () => clock.now);
  return { clock, cooldowns };
}

describe("Cooldowns", () => {
  it("opens after the policy's failures within its window, skips the deployment for the cooldown, and says so once", () => {
    const { clock, cooldowns } = clocked();

    expect(cooldowns.failed("a")).toBeUndefined();
    clock.now += 1_000;
    expect(cooldowns.failed("a")).toBeUndefined();
    expect(cooldowns.available("a")).toBe(true);
    clock.now += 1_000;
    const change = cooldowns.failed("a");

    expect(change).toStrictEqual({ opened: true, until: clock.now + 30_000 });
    expect(cooldowns.available("a")).toBe(false);
    expect(cooldowns.openUntil("a")).toBe(clock.now + 30_000);
    expect(cooldowns.available("b")).toBe(true);
  });

  it("forgets failures older than the window", () => {
    const { clock, cooldowns } = clocked();
    cooldowns.failed("a");
    cooldowns.failed("a");
    clock.now += 10_001;

    expect(cooldowns.failed("a")).toBeUndefined();
    expect(cooldowns.available("a")).toBe(true);
  });

  it("lets one call through after the cooldown: its success closes the breaker, its failure opens it again at once", () => {
    const { clock, cooldowns } = clocked();
    for (let i = 0; i < 3; i += 1) cooldowns.failed("a");
    clock.now += 30_000;

    expect(cooldowns.available("a")).toBe(true);
    cooldowns.begin("a");
    expect(cooldowns.available("a")).toBe(false);
    expect(cooldowns.failed("a")).toStrictEqual({ opened: true, until: clock.now + 30_000 });

    clock.now += 30_000;
    cooldowns.begin("a");
    expect(cooldowns.succeeded("a")).toStrictEqual({ closed: true });
    expect(cooldowns.available("a")).toBe(true);
    expect(cooldowns.succeeded("a")).toBeUndefined();
  });

  it("takes the breakers other processes opened, and closes those they closed", () => {
    const { clock, cooldowns } = clocked();

    cooldowns.share(new Map([["a", clock.now + 5_000], ["b", clock.now - 1]]));
    expect([cooldowns.available("a"), cooldowns.available("b")]).toStrictEqual([false, true]);
    expect(cooldowns.openUntil("a")).toBe(clock.now + 5_000);

    cooldowns.share(new Map());
    expect(cooldowns.available("a")).toBe(true);
  });

  it("keeps a breaker it opened itself when the store does not show it yet, and the later of two cooldowns", () => {
    const { clock, cooldowns } = clocked();
    for (let i = 0; i < 3; i += 1) cooldowns.failed("a");
    const ownUntil = clock.now + 30_000;

    cooldowns.share(new Map());
    expect(cooldowns.openUntil("a")).toBe(ownUntil);
    cooldowns.share(new Map([["a", ownUntil - 10_000]]));
    expect(cooldowns.openUntil("a")).toBe(ownUntil);
    cooldowns.share(new Map([["a", ownUntil + 10_000]]));
    expect(cooldowns.openUntil("a")).toBe(ownUntil + 10_000);
  });
});
