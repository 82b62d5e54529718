/**
 * Retrieval registries (docs/retrieval.md): the records of search-index deployments and ingestion
 * pipeline configurations, and the rules that shape them on the wire.
 */
import { createHash } from "node:crypto";
import type { DeploymentStatus, DeploymentSummary, PipelineOut, VespaDeployment } from "../schemas/retrieval.js";
import { Unprocessable } from "./errors.js";

/** A registered search-index deployment. Its name is unique in the workspace; its id stays while it is registered. */
export interface DeploymentRecord {
  workspace: string;
  id: string;
  name: string;
  status: DeploymentStatus;
  creatorId: string;
  createdAt: string;
  modifiedAt: string;
  /** The deployment as last registered. */
  deployment: VespaDeployment;
  /** From the last metrics update: the deployment's documents, and each index's by name. */
  documentCount: number;
  indexCounts: Record<string, number>;
  /** Counts registrations: a metrics update applies to the definition it was checked against. */
  revision: number;
}

/** A registered ingestion pipeline configuration and what its runs reported. */
export interface PipelineRecord {
  workspace: string;
  id: string;
  name: string;
  authorId: string;
  createdAt: string;
  modifiedAt: string;
  pipelineComposition: Record<string, string> | null;
  targetIndexes: { type: "vespa"; name: string }[] | null;
  /** The latest `execution_time` reported (normalized ISO 8601), and that run's chunks. */
  lastRunTime: string | null;
  lastRunChunksCount: number;
  /** The sum of every reported run's chunks. */
  totalChunksCount: number;
}

/**
 * An index's id: a name-based UUID (version 5 layout, SHA-1) of its deployment's id and its name. It stays
 * the same across re-registrations that keep the index, and a deployment registered anew (new id) gets new ones.
 */
export function indexId(deploymentId: string, indexName: string): string {
  const hash = createHash("sha1").update(`retrieval-index\u0000${deploymentId}\u0000${indexName}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function toDeploymentSummary(record: DeploymentRecord): DeploymentSummary {
  return {
    id: record.id,
    name: record.name,
    creator_id: record.creatorId,
    document_count: record.documentCount,
    status: record.status,
    created_at: record.createdAt,
    modified_at: record.modifiedAt,
    deployment: {
      type: "vespa",
      indexes: record.deployment.indexes.map((index) => ({
        id: indexId(record.id, index.name),
        name: index.name,
        document_count: record.indexCounts[index.name] ?? null,
      })),
    },
  };
}

/** Metrics may only name indexes the deployment has (the OpenAPI's 422 "Attempted to update unknown index"). */
export function requireKnownIndexes(record: DeploymentRecord, metrics: { name: string }[]): void {
  const known = new Set(record.deployment.indexes.map((index) => index.name));
  const unknown = metrics.flatMap((metric, i) => (known.has(metric.name) ? [] : [{ metric, i }]));
  if (!unknown.length) return;
  const has = known.size ? [...known].map((name) => `'${name}'`).join(", ") : "none";
  throw new Unprocessable(
    unknown.map(({ metric, i }) => ({
      loc: ["body", "index_metrics", i, "name"],
      msg: `Attempted to update unknown index '${metric.name}'; the deployment's indexes: ${has}`,
      type: "value_error",
    })),
  );
}

export function toPipelineOut(record: PipelineRecord): PipelineOut {
  return {
    id: record.id,
    author_id: record.authorId,
    name: record.name,
    created_at: record.createdAt,
    modified_at: record.modifiedAt,
    last_run_time: record.lastRunTime,
    last_run_chunks_count: record.lastRunChunksCount,
    total_chunks_count: record.totalChunksCount,
    pipeline_composition: record.pipelineComposition,
  };
}
