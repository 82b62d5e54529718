/**
 * Ingestion pipeline configurations (`/v1/rag/ingestion_pipeline_configurations`, beta): what a workspace's
 * ingestion pipelines are made of, and what their runs report.
 */
import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { NotFound } from "../../domain/errors.js";
import { toPipelineOut } from "../../domain/retrieval.js";
import type { PipelineOut, RegisterPipelineBody, RunInfoBody } from "../../schemas/retrieval.js";
import { retrievalStore } from "../../store/retrieval.js";

export async function listPipelines(caller: Caller): Promise<PipelineOut[]> {
  return (await retrievalStore.listPipelines(caller.workspace)).map(toPipelineOut);
}

/** The name is the identity: registering a name the workspace has replaces its composition and keeps its id and run counts. */
export async function registerPipeline(caller: Caller, body: RegisterPipelineBody): Promise<PipelineOut> {
  const record = await retrievalStore.registerPipeline({
    workspace: caller.workspace,
    name: body.name,
    pipelineComposition: body.pipeline_composition ?? null,
    targetIndexes: body.target_indexes ?? null,
    authorId: caller.principal,
    newId: randomUUID(),
    now: new Date().toISOString(),
  });
  return toPipelineOut(record);
}

/**
 * One run's report: `chunks_count` is added to `total_chunks_count`; the run becomes the last run
 * (`last_run_time`, `last_run_chunks_count`) unless a later one was reported already.
 */
export async function updateRunInfo(caller: Caller, id: string, body: RunInfoBody): Promise<PipelineOut> {
  const record = await retrievalStore.findPipeline(caller.workspace, id);
  if (!record) throw new NotFound("ingestion_pipeline_configuration", id);
  const updated = await retrievalStore.recordRun(record, { at: body.execution_time, chunks: body.chunks_count });
  if (!updated) throw new NotFound("ingestion_pipeline_configuration", id);
  return toPipelineOut(updated);
}
