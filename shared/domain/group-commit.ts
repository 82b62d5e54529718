/**
 * Group commit: `write(item)` resolves once a batch holding the item is written. The first item starts a
 * write at once; items arriving while it runs wait and go together in the next, up to `maxBatch` each.
 * `writeBatch` may answer one outcome per item (an error, or undefined for written): a batch that writes
 * several things (one counter update per key) fails only the items whose part failed, so that their
 * callers' retries never repeat a part that was applied. A batch that throws fails all its items.
 */
export class GroupCommit<T> {
  private readonly queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private draining = false;

  constructor(
    private readonly writeBatch: (items: T[]) => Promise<void | readonly unknown[]>,
    private readonly maxBatch: number,
  ) {}

  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const outcomes = await this.writeBatch(batch.map((b) => b.item));
          batch.forEach((b, i) => {
            const error = outcomes?.[i];
            if (error === undefined) b.resolve();
            else b.reject(error);
          });
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
