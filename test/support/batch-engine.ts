import { randomUUID } from "node:crypto";
import { batchBlobs } from "../../shared/blobs/batch.js";
import { fileBlobs } from "../../shared/blobs/files.js";
import * as engine from "../../shared/services/batch/engine/index.js";
import type { BatchChunk, BatchStarted } from "../../shared/engine/batch-machine.js";
import { batchStore } from "../../shared/store/batch.js";
import type { BatchJobRecord } from "../../shared/domain/batch-rules.js";
import { aBatchJob } from "./batch-table.js";
import { follow, type FilesClient } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** One line of a batch input. */
export interface BatchLine {
  custom_id: string;
  body: Record<string, unknown>;
}

export const toJsonl = (lines: BatchLine[]): string => lines.map((line) => `${JSON.stringify(line)}\n`).join("");

/** `n` chat requests `r0…r<n-1>`, each asking "question <i>". */
export const chatLines = (n: number, body: (i: number) => Record<string, unknown> = (i) => ({ messages: [{ role: "user", content: `question ${i}` }] })): BatchLine[] =>
  Array.from({ length: n }, (_, i) => ({ custom_id: `r${i}`, body: body(i) }));

/**
 * A QUEUED job of the tenant, stored as create stores it, its requests inline (an object in the bucket)
 * unless `inputFiles` is given.
 */
export async function aQueuedJob(tenant: TestTenant, lines: BatchLine[] | null, overrides: Partial<BatchJobRecord> = {}): Promise<BatchJobRecord> {
  const createdAt = Math.floor(Date.now() / 1000);
  const id = overrides.id ?? randomUUID();
  const inlineKey = lines ? `workspaces/${tenant.caller.workspace}/batch/${id}/inline.jsonl` : null;
  if (lines) await fileBlobs.put(inlineKey!, Buffer.from(toJsonl(lines)), "application/jsonl");
  const job = aBatchJob({
    id,
    workspace: tenant.caller.workspace,
    organization: tenant.caller.organization,
    owner: tenant.caller.principal,
    createdAt,
    deadline: createdAt + 24 * 3600,
    inputFiles: [],
    inlineKey,
    executionArn: null,
    ...overrides,
  });
  await batchStore.create(job, Date.now());
  return job;
}

export const jobNow = async (job: Pick<BatchJobRecord, "workspace" | "id">): Promise<BatchJobRecord> => {
  const current = await batchStore.get(job.workspace, job.id);
  if (!current) throw new Error(`job ${job.id} is gone`);
  return current;
};

export async function manifestOf(started: BatchStarted): Promise<BatchChunk[]> {
  const text = await batchBlobs.text(started.manifestKey);
  if (text === undefined) throw new Error(`no manifest at ${started.manifestKey}`);
  return JSON.parse(text) as BatchChunk[];
}

export interface RunHooks {
  /** Runs before chunk `index`. */
  beforeChunk?: (index: number) => Promise<void>;
  chunk?: engine.ChunkOptions;
  finish?: engine.FinishOptions;
}

/** What Step Functions does with the tasks, without Step Functions: Start, every chunk of the manifest in order, Finish. */
export async function runJob(job: Pick<BatchJobRecord, "workspace" | "id">, hooks: RunHooks = {}) {
  const started = await engine.start({ workspace: job.workspace, jobId: job.id });
  const chunks = await manifestOf(started);
  for (const chunk of chunks) {
    await hooks.beforeChunk?.(chunk.index);
    await engine.runChunk({ job: started, chunk }, hooks.chunk);
  }
  const finished = await engine.finish(started, hooks.finish);
  return { started, chunks, finished, job: await jobNow(job) };
}

/** The lines of a File, downloaded the way a client does: /content, then the presigned URL. */
export async function downloadLines(files: FilesClient, fileId: string): Promise<any[]> {
  const { status, bytes } = await follow(await files.content(fileId));
  if (status !== 200) throw new Error(`download answered ${status}`);
  return bytes
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
