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

  it("takes another process's news: open until a time, or closed", () => {
    const { clock, cooldowns } = clocked();

    cooldowns.adopt("a", clock.now + 5_000);
    expect(cooldowns.available("a")).toBe(false);
    cooldowns.adopt("a", undefined);
    expect(cooldowns.available("a")).toBe(true);
  });
});
