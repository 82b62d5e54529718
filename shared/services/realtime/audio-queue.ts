import type { LiveAudio } from "../../inference/types.js";

/** How much audio may wait for the provider before the client is made to wait: 4 MiB (over 2 minutes at 16 kHz). */
export const QUEUE_HIGH_WATER_BYTES = 4 * 1024 * 1024;

/**
 * The client's audio on its way to the provider, read once as an async iterable. `push` resolves when there is room,
 * so a client sending faster than the provider takes (a file streamed at full speed) is held back by its own
 * connection (the socket server stops reading while a push waits) rather than by this process's memory.
 */
export class AudioQueue implements AsyncIterable<LiveAudio> {
  private readonly items: LiveAudio[] = [];
  private queuedBytes = 0;
  private ended = false;
  private wakeReader: (() => void) | undefined;
  private wakeWriters: (() => void)[] = [];

  constructor(private readonly highWater = QUEUE_HIGH_WATER_BYTES) {}

  async push(item: LiveAudio): Promise<void> {
    if (this.ended) return;
    this.items.push(item);
    if (item.type === "audio") this.queuedBytes += item.data.length;
    this.wake();
    while (this.queuedBytes > this.highWater && !this.ended) await new Promise<void>((resolve) => this.wakeWriters.push(resolve));
  }

  /** No more audio: the reader takes what is queued, then ends. Also what stops a session's provider call early. */
  end(): void {
    this.ended = true;
    this.wake();
    this.release();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LiveAudio> {
    for (;;) {
      const item = this.items.shift();
      if (item) {
        if (item.type === "audio") this.queuedBytes -= item.data.length;
        if (this.queuedBytes <= this.highWater) this.release();
        yield item;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wakeReader = resolve));
    }
  }

  private wake(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    wake?.();
  }

  private release(): void {
    const writers = this.wakeWriters;
    this.wakeWriters = [];
    for (const resume of writers) resume();
  }
}
