import { randomUUID } from "node:crypto";
import type { Caller } from "../../shared/domain/caller.js";
import type { DeploymentRecord, PipelineRecord } from "../../shared/domain/retrieval.js";

/** A deployment record of `caller`'s workspace, with one index `docs`. */
export function aDeploymentRecord(caller: Pick<Caller, "workspace" | "principal">, overrides: Partial<DeploymentRecord> = {}): DeploymentRecord {
  return {
    workspace: caller.workspace,
    id: randomUUID(),
    name: "search",
    status: "offline",
    creatorId: caller.principal,
    createdAt: "2025-01-01T00:00:00.000Z",
    modifiedAt: "2025-01-01T00:00:00.000Z",
    deployment: {
      type: "vespa",
      vespa_version: "8.400.1",
      query_url: "https://vespa.example/search/",
      indexes: [{ name: "docs", sd: "schema docs {}", fields: [{ name: "text", type: "string", storage: "on_disk", ranking: "text", index_type: "bm25", multidimensional: false }] }],
    },
    documentCount: 0,
    indexCounts: {},
    revision: 1,
    ...overrides,
  };
}

/** A pipeline configuration record of `caller`'s workspace, never run. */
export function aPipelineRecord(caller: Pick<Caller, "workspace" | "principal">, overrides: Partial<PipelineRecord> = {}): PipelineRecord {
  return {
    workspace: caller.workspace,
    id: randomUUID(),
    name: "ingest",
    authorId: caller.principal,
    createdAt: "2025-01-01T00:00:00.000Z",
    modifiedAt: "2025-01-01T00:00:00.000Z",
    pipelineComposition: null,
    targetIndexes: null,
    lastRunTime: null,
    lastRunChunksCount: 0,
    totalChunksCount: 0,
    ...overrides,
  };
}

/** A record as the retrieval table holds it: keyed by kind and name, indexed by id (a run time only once there is one). */
export function aRetrievalItem(record: DeploymentRecord | PipelineRecord): Record<string, unknown> {
  const kind = "deployment" in record ? "DEPLOYMENT" : "PIPELINE";
  const item: Record<string, unknown> = { ...record, sk: `${kind}#${record.name}`, idKey: `${kind}#${record.id}` };
  if (item.lastRunTime === null) delete item.lastRunTime;
  return item;
}
