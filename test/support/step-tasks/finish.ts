import { record, type StubJob } from "./calls.js";

export async function handler(input: StubJob) {
  record("finish", input);
  return { workspace: input.workspace, jobId: input.jobId, finished: true };
}
