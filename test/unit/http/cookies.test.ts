/** Cookies of the platform's own pages (shared/http/cookies.ts). */
import { describe, expect, it } from "vitest";
import { clearCookie, cookiesOf, setCookie } from "../../../shared/http/cookies.js";

describe("cookiesOf", () => {
  it("reads the Cookie header, the first of a repeated name, decoded; skips what it cannot read", () => {
    expect(Object.entries(cookiesOf({ cookie: "a=1; b=x%20y; a=2; junk; c=%E0%A4%A; __proto__=p" }))).toStrictEqual([["a", "1"], ["b", "x y"], ["__proto__", "p"]]);
    expect(Object.getPrototypeOf(cookiesOf({ cookie: "__proto__=p" }))).toBeNull();
    expect(cookiesOf({})).toStrictEqual(Object.create(null));
    expect(cookiesOf(null)).toStrictEqual(Object.create(null));
  });
});

describe("setCookie", () => {
  it("is always HttpOnly, Secure only when asked", () => {
    expect(setCookie("n", "v=1", { path: "/p", maxAgeSeconds: 600, sameSite: "Lax", secure: true })).toBe("n=v%3D1; Path=/p; Max-Age=600; HttpOnly; SameSite=Lax; Secure");
    expect(setCookie("n", "v", { path: "/p", maxAgeSeconds: 600, sameSite: "Strict", secure: false })).toBe("n=v; Path=/p; Max-Age=600; HttpOnly; SameSite=Strict");
    expect(clearCookie("n", { path: "/p", sameSite: "Lax", secure: false })).toBe("n=; Path=/p; Max-Age=0; HttpOnly; SameSite=Lax");
  });
});
