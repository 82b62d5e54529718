import { describe, expect, it } from "vitest";
import { Unprocessable } from "../../../../shared/domain/errors.js";
import { cacheRequestOf, cachingOf, DEFAULT_CACHE_TTL_SECONDS, responseKeyOf } from "../../../../shared/domain/routing/response-cache.js";

describe("cacheRequestOf", () => {
  it("reads on and off in any case, and a TTL in whole seconds", () => {
    expect(cacheRequestOf(" On ", undefined)).toStrictEqual({ mode: "on" });
    expect(cacheRequestOf("off", undefined)).toStrictEqual({ mode: "off" });
    expect(cacheRequestOf(undefined, "90")).toStrictEqual({ ttlSeconds: 90 });
    expect(cacheRequestOf(undefined, undefined)).toStrictEqual({});
  });

  it.each([
    ["yes", undefined, ["header", "x-response-cache"]],
    [undefined, "0", ["header", "x-response-cache-ttl"]],
    [undefined, "1.5", ["header", "x-response-cache-ttl"]],
    [undefined, "604801", ["header", "x-response-cache-ttl"]],
    [undefined, "-3", ["header", "x-response-cache-ttl"]],
  ])("refuses mode %s / ttl %s with a 422 naming the header", (mode, ttl, loc) => {
    const error = (() => {
      try {
        cacheRequestOf(mode, ttl);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(Unprocessable);
    expect((error as Unprocessable).detail.map((d) => d.loc)).toStrictEqual([loc]);
  });
});

describe("cachingOf", () => {
  it("takes the call's word first, then the workspace's", () => {
    expect(cachingOf(undefined, undefined)).toBeUndefined();
    expect(cachingOf(undefined, 600)).toStrictEqual({ ttlSeconds: 600 });
    expect(cachingOf({ mode: "off" }, 600)).toBeUndefined();
    expect(cachingOf({ mode: "on" }, undefined)).toStrictEqual({ ttlSeconds: DEFAULT_CACHE_TTL_SECONDS });
    expect(cachingOf({ mode: "on" }, 600)).toStrictEqual({ ttlSeconds: 600 });
    expect(cachingOf({ ttlSeconds: 5 }, 600)).toStrictEqual({ ttlSeconds: 5 });
    expect(cachingOf({ mode: "off", ttlSeconds: 5 }, 600)).toBeUndefined();
  });
});

describe("responseKeyOf", () => {
  const request = { model: "small", messages: [{ role: "user", content: "hi" }], temperature: 0.2, tools: [{ type: "function", function: { name: "f", parameters: { b: 1, a: 2 } } }] };
  const key = responseKeyOf("chat", "mistral-small-2402", request);

  it("ignores field order at every depth, how the answer is delivered, and absent or null fields", () => {
    const reordered = { tools: [{ function: { parameters: { a: 2, b: 1 }, name: "f" }, type: "function" }], temperature: 0.2, messages: [{ content: "hi", role: "user" }], model: "small" };
    expect(responseKeyOf("chat", "mistral-small-2402", reordered)).toBe(key);
    expect(responseKeyOf("chat", "mistral-small-2402", { ...request, stream: true, stream_options: { include_usage: true }, random_seed: null })).toBe(key);
  });

  it("stands for the resolved model, not the name the caller used", () => {
    expect(responseKeyOf("chat", "mistral-small-2402", { ...request, model: "mistral-small-latest" })).toBe(key);
    expect(responseKeyOf("chat", "mistral-large-2407", request)).not.toBe(key);
  });

  it("changes with anything that decides the answer", () => {
    const others = [
      responseKeyOf("fim", "mistral-small-2402", request),
      responseKeyOf("chat", "mistral-small-2402", { ...request, temperature: 0.3 }),
      responseKeyOf("chat", "mistral-small-2402", { ...request, messages: [{ role: "user", content: "hi!" }] }),
      responseKeyOf("chat", "mistral-small-2402", { ...request, tools: [] }),
      responseKeyOf("chat", "mistral-small-2402", { ...request, n: 2 }),
      // Element order of a list is meaning (messages, tools), not presentation.
      responseKeyOf("chat", "mistral-small-2402", { ...request, messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }] }),
      responseKeyOf("chat", "mistral-small-2402", { ...request, messages: [{ role: "user", content: "b" }, { role: "user", content: "a" }] }),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });
});
