import { describe, expect, it } from "vitest";
import { cosine, hashEmbedding } from "../../../shared/inference/feature-hashing.js";
import { OfflineProvider } from "../../../shared/inference/providers/offline.js";

const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));

describe("feature-hashing embeddings", () => {
  it("normalises vectors of any size without exhausting the stack", () => {
    const vector = hashEmbedding("a long enough sentence to fill some buckets", 300_000);

    expect(vector).toHaveLength(300_000);
    expect(Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0))).toBeCloseTo(1, 6);
  });

  it("has 1024 dimensions by default, as the offline provider serves them", async () => {
    const { vectors } = await new OfflineProvider().embed({ model: "offline-hash-embed", inputs: ["a sentence to embed"] });

    expect(vectors[0]).toHaveLength(1024);
    expect(vectors[0]).toStrictEqual(hashEmbedding("a sentence to embed", 1024));
  });

  it("has as many dimensions as asked for", () => {
    expect([256, 512, 3072].map((d) => hashEmbedding("a sentence to embed", d).length)).toStrictEqual([256, 512, 3072]);
  });

  it("is L2-normalised", () => {
    expect(norm(hashEmbedding("The quick brown fox jumps over the lazy dog", 1024))).toBeCloseTo(1, 12);
  });

  it("is L2-normalised at other sizes too", () => {
    expect(norm(hashEmbedding("The quick brown fox jumps over the lazy dog", 256))).toBeCloseTo(1, 12);
  });

  it("is deterministic", () => {
    expect(hashEmbedding("same text, same vector", 1024)).toStrictEqual(hashEmbedding("same text, same vector", 1024));
  });

  it("differs between different texts", () => {
    expect(hashEmbedding("first text", 1024)).not.toStrictEqual(hashEmbedding("second text", 1024));
  });

  it("puts texts that share words closer than unrelated texts", () => {
    const cat = hashEmbedding("the cat sat on the mat", 1024);
    const cats = hashEmbedding("a cat sat on a mat by the door", 1024);
    const stocks = hashEmbedding("quarterly earnings beat analyst forecasts", 1024);

    expect(cosine(cat, cats)).toBeGreaterThan(cosine(cat, stocks));
  });

  it("keeps sharing words closer at a small dimension size", () => {
    const cat = hashEmbedding("the cat sat on the mat", 256);
    const cats = hashEmbedding("a cat sat on a mat by the door", 256);
    const stocks = hashEmbedding("quarterly earnings beat analyst forecasts", 256);

    expect(cosine(cat, cats)).toBeGreaterThan(cosine(cat, stocks));
  });

  it("gives a text a cosine of 1 with itself", () => {
    const vector = hashEmbedding("identical", 1024);

    expect(cosine(vector, vector)).toBeCloseTo(1, 12);
  });

  it("ignores case and punctuation", () => {
    expect(hashEmbedding("Hello, World!", 1024)).toStrictEqual(hashEmbedding("hello world", 1024));
  });

  it("embeds empty text as the zero vector, without NaN", () => {
    const vector = hashEmbedding("", 1024);

    expect(vector).toHaveLength(1024);
    expect(vector.every((v) => v === 0)).toBe(true);
  });

  it("embeds text without any word as the zero vector", () => {
    expect(hashEmbedding("?! ... --", 512).every((v) => v === 0)).toBe(true);
  });

  it("embeds words of any script", () => {
    expect(norm(hashEmbedding("日本語のテキスト", 1024))).toBeCloseTo(1, 12);
  });
});
