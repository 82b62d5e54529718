import { describe, expect, it } from "vitest";
import { certainlyOverTokens, certainlyWithinTokens } from "../../../shared/domain/models.js";
import { countTokens } from "../../../shared/inference/tokenizer.js";

/**
 * The context check skips counting when the bytes decide (decision 0045): a text of n bytes has at most n + 1
 * tokens, and more than n / MAX_BYTES_PER_TOKEN. Texts that push each tokenizer's worst case: byte fallback
 * on rare characters, compatibility characters a normalizer could expand, lone combining marks, control
 * characters, emoji, whitespace runs.
 */
const CORPUS = [
  "a",
  " ",
  "\t\n",
  "\u0000\u0001\u0002",
  "ﷺ",
  "ﬁ ﬂ ㎏ ½ Ⅻ",
  "\u0301\u0301\u0301",
  "🙂👩‍👩‍👧‍👦🏳️‍🌈",
  "   \n\n\t\t   ",
  "x\u200bx\u200bx",
  "日本語のテキストと한국어 텍스트",
  "مرحبا بالعالم",
  '{"k":[1,2,3],"s":"\\u00e9"}',
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙",
  "\uFFFD\uFFFD",
];

describe("the byte bounds of the context check", () => {
  for (const tokenizer of ["v1", "v2", "v3", "tekken"] as const) {
    it(`hold for ${tokenizer} on texts that push its worst case`, () => {
      for (const text of CORPUS) {
        const bytes = Buffer.byteLength(text);
        const tokens = countTokens(tokenizer, text);
        expect(tokens, JSON.stringify(text)).toBeLessThanOrEqual(bytes + 1);
        expect(certainlyWithinTokens(bytes, tokens), JSON.stringify(text)).toBe(bytes + 1 <= tokens);
        expect(certainlyOverTokens(bytes, tokenizer, tokens), JSON.stringify(text)).toBe(false);
      }
    });
  }

  it("decides only where it is certain", () => {
    expect(certainlyWithinTokens(99, 100)).toBe(true);
    expect(certainlyWithinTokens(100, 100)).toBe(false);
  });
});
