import { describe, expect, it } from "vitest";
import { countTokens, tokenizerFor } from "../../../shared/inference/tokenizer.js";

const HELLO = "Hello, world!";
const FOX = "The quick brown fox jumps over the lazy dog.";
const CODE = "def fibonacci(n):\n    return n";

describe("Mistral tokenizers", () => {
  it("counts with the SentencePiece v1 vocabulary", () => {
    expect([HELLO, FOX, CODE].map((text) => countTokens("v1", text))).toStrictEqual([4, 12, 11]);
  });

  it("encodes with the v1 vocabulary's token ids", () => {
    expect(tokenizerFor("v1").encode(HELLO, false, false)).toStrictEqual([22557, 28725, 1526, 28808]);
  });

  it("counts with the SentencePiece v3 vocabulary", () => {
    expect([HELLO, FOX, CODE].map((text) => countTokens("v3", text))).toStrictEqual([4, 12, 11]);
  });

  it("encodes with the v3 vocabulary's token ids", () => {
    expect(tokenizerFor("v3").encode(HELLO, false, false)).toStrictEqual([23325, 29493, 2294, 29576]);
  });

  it("counts with the Tekken vocabulary", () => {
    expect([HELLO, FOX, CODE].map((text) => countTokens("tekken", text))).toStrictEqual([4, 10, 8]);
  });

  it("encodes with Tekken's token ids", () => {
    expect(tokenizerFor("tekken").encode(FOX, false, false)).toStrictEqual([1784, 7586, 22980, 94137, 72993, 2136, 1278, 42757, 10575, 1046]);
  });

  it("counts non-Latin text and emoji", () => {
    expect(["v1", "v3", "tekken"].map((kind) => countTokens(kind as "v1", "Bonjour à tous 🚀"))).toStrictEqual([6, 6, 7]);
  });

  it("counts the text alone, without begin- or end-of-sequence tokens", () => {
    expect(countTokens("v3", HELLO)).toBe(tokenizerFor("v3").encode(HELLO, false, false).length);
    expect(tokenizerFor("v3").encode(HELLO, true, true).length).toBe(countTokens("v3", HELLO) + 2);
  });

  it("counts empty text as 0 tokens", () => {
    expect(["v1", "v2", "v3", "tekken"].map((kind) => countTokens(kind as "v1", ""))).toStrictEqual([0, 0, 0, 0]);
  });

  it("loads each tokenizer once and reuses it", () => {
    expect(tokenizerFor("v3")).toBe(tokenizerFor("v3"));
  });

  it("keeps Tekken apart from the SentencePiece v3 tokenizer", () => {
    expect(tokenizerFor("tekken")).not.toBe(tokenizerFor("v3"));
  });
});
