import { MergeHeap } from "./tokenizer-heap.js";

/**
 * Byte-pair merging in the order "least rank first, leftmost among equals", without rescanning: candidate
 * pairs sit in buckets by rank, each bucket drained left to right, stale pairs skipped. A merge only makes
 * pairs of other ranks (a pair holding the merged token is not the pair that made it), so a bucket never
 * grows while it drains; a new pair of lower rank interrupts the drain until it is done. O(n log r) for r
 * distinct ranks; linear on runs of one character. Both encoders use it (docs/decisions/0048-own-tokenizer-encoders.md):
 * Tekken always, SentencePiece within a word.
 */
export class BucketMerge {
  // Parts by start offset: `ends[s]` where the part starting at s ends, `parts[s]` its token, `starts[e]`
  // where the part ending at e starts. Entries (candidate pairs) are linked lists on typed arrays.
  private ends = new Int32Array(64);
  private starts = new Int32Array(64);
  private parts = new Int32Array(64);
  private entryStart = new Int32Array(64);
  private entryEnd = new Int32Array(64);
  private entryNext = new Int32Array(64);
  private readonly ranks = new MergeHeap();

  /**
   * The tokens `initial` merges to. `rankOf(left, right, start, end)`: the rank of merging tokens `left` and
   * `right` spanning [start, end) of the input, or -1; `tokenOf(rank)`: the token that merge makes.
   */
  merge(initial: ArrayLike<number>, rankOf: (left: number, right: number, start: number, end: number) => number, tokenOf: (rank: number) => number): Int32Array {
    const n = initial.length;
    if (this.ends.length < n + 1) {
      this.ends = new Int32Array(n + 1);
      this.starts = new Int32Array(n + 1);
      this.parts = new Int32Array(n + 1);
    }
    if (this.entryStart.length < 3 * n) {
      this.entryStart = new Int32Array(3 * n);
      this.entryEnd = new Int32Array(3 * n);
      this.entryNext = new Int32Array(3 * n);
    }
    const { ends, starts, parts, entryStart, entryEnd, entryNext, ranks } = this;
    for (let i = 0; i < n; i++) {
      ends[i] = i + 1;
      starts[i + 1] = i;
      parts[i] = initial[i]!;
    }
    let entries = 0;
    ranks.clear();
    const buckets = new Map<number, Bucket>();
    const consider = (left: number, right: number, end: number): number => {
      const rank = rankOf(parts[left]!, parts[right]!, left, end);
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
        // Stale unless the part at `start` and its successor still span exactly [start, end): parts only
        // grow, so the same span is the same two parts as when the pair was made.
        const middle = ends[start]!;
        if (middle <= start || middle >= n || ends[middle] !== end) continue;
        ends[start] = end;
        ends[middle] = middle; // no longer a part's start
        starts[end] = start;
        parts[start] = tokenOf(rank);
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
    const tokens: number[] = [];
    for (let s = 0; s < n; s = ends[s]!) tokens.push(parts[s]!);
    if (this.ends.length > 1 << 16) {
      this.ends = new Int32Array(64);
      this.starts = new Int32Array(64);
      this.parts = new Int32Array(64);
      this.entryStart = new Int32Array(64);
      this.entryEnd = new Int32Array(64);
      this.entryNext = new Int32Array(64);
    }
    ranks.shrink();
    return Int32Array.from(tokens);
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
