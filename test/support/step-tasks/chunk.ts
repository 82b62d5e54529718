import { setTimeout as sleep } from "node:timers/promises";
import { record, type StubJob } from "./calls.js";

export async function handler(input: { job: StubJob; chunk: { index: number; count: number } }) {
  record("chunk", input);
  if (input.job.chunkDelayMs) await sleep(input.job.chunkDelayMs);
  if (input.chunk.index === input.job.failChunk) throw new RangeError(`chunk ${input.chunk.index} failed`);
  return { index: input.chunk.index, done: input.chunk.count };
}
