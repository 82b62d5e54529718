/**
 * What the stub tasks were called with, per job. Kept on globalThis: the local Step Functions imports the
 * task modules by file URL, which may give them module instances of their own.
 */
export interface TaskCall {
  task: "start" | "chunk" | "finish" | "recordFailure";
  input: any;
  at: number;
}

const calls = ((globalThis as { __stepTaskCalls?: TaskCall[] }).__stepTaskCalls ??= []);

export const record = (task: TaskCall["task"], input: any) => void calls.push({ task, input, at: Date.now() });

export const callsOf = (jobId: string, task?: TaskCall["task"]): TaskCall[] =>
  calls.filter((c) => (c.input.job?.jobId ?? c.input.jobId) === jobId && (!task || c.task === task));

/** How a test job asks the stubs to behave; Start passes it on in its output, so every chunk sees it as `job`. */
export interface StubJob {
  workspace: string;
  jobId: string;
  /** Chunks Start writes into the manifest. */
  chunks?: number;
  /** Start throws an error of this name. */
  failStart?: string;
  /** Start names a manifest it never writes. */
  noManifest?: boolean;
  /** The chunk with this index throws. */
  failChunk?: number;
  chunkDelayMs?: number;
}
