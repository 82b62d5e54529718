import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasTokenLimits, roomFor, tokenWindows } from "../../../shared/domain/token-limits.js";

const at = new Date("2026-11-23T12:34:45.000Z");
const seconds = Math.floor(at.getTime() / 1000);

describe("tokenWindows", () => {
  it("has no window for a key without token limits", () => {
    expect(hasTokenLimits({})).toBe(false);
    expect(tokenWindows({}, at)).toStrictEqual([]);
  });

  it("gives a minute's and a day's window, each ending (and expiring) after its UTC period", () => {
    expect(tokenWindows({ tokensPerMinute: 1000, tokensPerDay: 50_000 }, at)).toStrictEqual([
      { kind: "minute", id: "tpm#2026-11-23T12:34", limit: 1000, expiresAt: seconds + 120, endsInSeconds: 15 },
      { kind: "day", id: "tpd#2026-11-23", limit: 50_000, expiresAt: seconds + 2 * 86_400, endsInSeconds: 11 * 3600 + 25 * 60 + 15 },
    ]);
  });
});

describe("roomFor", () => {
  it("lets a call in only when it fits, and never into a full window", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 0, max: 1e6 }), (limit, tokens, held) => {
        fc.pre(tokens <= limit);
        const admitted = held <= roomFor(limit, tokens);
        expect(admitted).toBe(held + tokens <= limit && held < limit);
      }),
    );
  });
});
