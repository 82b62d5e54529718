import { describe, expect, it, vi } from "vitest";
import { forgetProcessCaches, PROCESS_CACHE_TTL_MS, TtlCache } from "../../../shared/domain/process-cache.js";

/** A clock the test moves. */
function aClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

describe("TtlCache", () => {
  it("answers from the cache within the TTL and reads again once it has passed", async () => {
    const clock = aClock();
    const cache = new TtlCache<string>(PROCESS_CACHE_TTL_MS, clock.now);
    const load = vi.fn(async () => `read ${load.mock.calls.length}`);

    expect(await cache.through("ws-1", load)).toBe("read 1");
    clock.advance(PROCESS_CACHE_TTL_MS - 1);
    expect(await cache.through("ws-1", load)).toBe("read 1");
    clock.advance(1);
    expect(await cache.through("ws-1", load)).toBe("read 2");
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("reads again when the clock went back past the time an entry was stored (a correction, a test's fake clock)", async () => {
    const clock = aClock();
    const cache = new TtlCache<string>(PROCESS_CACHE_TTL_MS, clock.now);
    const load = vi.fn(async () => `read ${load.mock.calls.length}`);

    expect(await cache.through("ws-1", load)).toBe("read 1");
    clock.advance(-1);
    expect(cache.get("ws-1")).toBeUndefined();
    expect(await cache.through("ws-1", load)).toBe("read 2");
  });

  it("shares one read among calls that arrive together", async () => {
    const cache = new TtlCache<number>();
    let release!: (n: number) => void;
    const load = vi.fn(() => new Promise<number>((resolve) => (release = resolve)));

    const both = Promise.all([cache.through("k", load), cache.through("k", load)]);
    release(7);

    expect(await both).toStrictEqual([7, 7]);
    expect(load).toHaveBeenCalledOnce();
  });

  it("does not keep what `keep` refuses (a model not found yet), nor a failed read", async () => {
    const cache = new TtlCache<string | undefined>();
    const missing = vi.fn(async () => undefined);
    await cache.through("m", missing, (v) => v !== undefined);
    await cache.through("m", missing, (v) => v !== undefined);
    expect(missing).toHaveBeenCalledTimes(2);

    await expect(cache.through("f", async () => Promise.reject(new Error("throttled")))).rejects.toThrow("throttled");
    expect(await cache.through("f", async () => "ok")).toBe("ok");
  });

  it("forgets one key, a prefix, or (forgetProcessCaches) everything", async () => {
    const cache = new TtlCache<string>();
    cache.set("a/1", "x");
    cache.set("a/2", "y");
    cache.set("b/1", "z");
    cache.delete("a/1");
    expect(cache.get("a/1")).toBeUndefined();
    cache.forget("a/");
    expect(cache.get("a/2")).toBeUndefined();
    expect(cache.get("b/1")).toBe("z");
    forgetProcessCaches();
    expect(cache.get("b/1")).toBeUndefined();
  });

  it("holds at most maxEntries, dropping the oldest", () => {
    const cache = new TtlCache<number>(PROCESS_CACHE_TTL_MS, Date.now, 2);
    cache.set("1", 1);
    cache.set("2", 2);
    cache.set("3", 3);
    expect([cache.get("1"), cache.get("2"), cache.get("3")]).toStrictEqual([undefined, 2, 3]);
  });

  it("is one cache per name in the process, whichever copy of the module asks (the bundled run's functions share it)", async () => {
    vi.resetModules();
    const copy = await import("../../../shared/domain/process-cache.js");
    expect(copy.TtlCache).not.toBe(TtlCache);
    TtlCache.named<string>("test-shared").set("k", "v");
    expect(copy.TtlCache.named<string>("test-shared").get("k")).toBe("v");
    copy.TtlCache.named<string>("test-shared").forget();
    expect(TtlCache.named<string>("test-shared").get("k")).toBeUndefined();
  });
});
