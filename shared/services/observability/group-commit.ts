/**
 * Group commit: `write(item)` resolves once a batch holding the item is written. The first item starts a
 * write at once; items arriving while it runs wait and go together in the next, up to `maxBatch` each. A
 * failed batch fails each of its items' promises (their callers retry or log them one by one).
 */
export class GroupCommit<T> {
  private readonly queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private draining = false;

  constructor(
    private readonly writeBatch: (items: T[]) => Promise<void>,
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
          await this.writeBatch(batch.map((b) => b.item));
          for (const b of batch) b.resolve();
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
