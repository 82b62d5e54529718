import { describe, expect, it } from "vitest";
import { fair } from "../../../shared/http/fair-stream.js";

/** Frames that are all ready at once: an async generator that never waits on I/O (a burst read, the offline echo). */
async function* burst(count: number): AsyncGenerator<string> {
  for (let i = 0; i < count; i += 1) yield `data: ${i}\n\n`;
}

/** Consumes `frames`, and says whether a callback scheduled for the event loop's next turn ran before the end. */
async function consumedLettingTheLoopRun(frames: AsyncIterable<string>): Promise<{ turnTaken: boolean; seen: string[] }> {
  let turnTaken = false;
  setImmediate(() => (turnTaken = true));
  const seen: string[] = [];
  let turnTakenBeforeEnd = false;
  for await (const frame of frames) {
    seen.push(frame);
    turnTakenBeforeEnd ||= turnTaken;
  }
  return { turnTaken: turnTakenBeforeEnd, seen };
}

describe("fair", () => {
  it("lets the event loop take a turn during a long burst, keeping every frame in order", async () => {
    const { turnTaken, seen } = await consumedLettingTheLoopRun(fair(burst(300_000), 5));

    expect(turnTaken).toBe(true);
    expect(seen).toHaveLength(300_000);
    expect(seen.slice(0, 2)).toStrictEqual(["data: 0\n\n", "data: 1\n\n"]);
    expect(seen.at(-1)).toBe("data: 299999\n\n");
  });

  it("is needed: the same burst consumed as it comes holds the event loop to its end", async () => {
    const { turnTaken } = await consumedLettingTheLoopRun(burst(300_000));

    expect(turnTaken).toBe(false);
  });

  it("passes a failure of the stream on", async () => {
    async function* failing(): AsyncGenerator<string> {
      yield "data: 1\n\n";
      throw new Error("connection reset");
    }
    const seen: string[] = [];

    await expect((async () => {
      for await (const frame of fair(failing())) seen.push(frame);
    })()).rejects.toThrow("connection reset");
    expect(seen).toStrictEqual(["data: 1\n\n"]);
  });
});
