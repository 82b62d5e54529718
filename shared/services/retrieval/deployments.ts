/**
 * Search-index deployments (`/v1/rag/deployments`, beta): a workspace's registry of the search indexes its
 * retrieval pipelines use. We keep what is registered and reported; we run no search engine.
 */
import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { Conflict, NotFound } from "../../domain/errors.js";
import { requireKnownIndexes, toDeploymentSummary, type DeploymentRecord } from "../../domain/retrieval.js";
import type { DeploymentSummary, RegisterDeploymentBody, UpdateMetricsBody } from "../../schemas/retrieval.js";
import { retrievalStore } from "../../store/retrieval.js";

/** Re-registrations racing a metrics update: the update re-checks against the new definition this many times. */
const METRICS_ATTEMPTS = 5;

export async function listDeployments(caller: Caller): Promise<{ deployments: DeploymentSummary[] }> {
  return { deployments: (await retrievalStore.listDeployments(caller.workspace)).map(toDeploymentSummary) };
}

/** The name is the identity: registering a name the workspace has replaces its definition and keeps its id. */
export async function registerDeployment(caller: Caller, body: RegisterDeploymentBody): Promise<{ id: string }> {
  const record = await retrievalStore.registerDeployment({
    workspace: caller.workspace,
    name: body.name,
    status: body.status,
    deployment: body.deployment,
    creatorId: caller.principal,
    newId: randomUUID(),
    now: new Date().toISOString(),
  });
  return { id: record.id };
}

async function found(caller: Caller, id: string): Promise<DeploymentRecord> {
  const record = await retrievalStore.findDeployment(caller.workspace, id);
  if (!record) throw new NotFound("deployment", id);
  return record;
}

export async function unregisterDeployment(caller: Caller, id: string): Promise<null> {
  const record = await found(caller, id);
  if (!(await retrievalStore.deleteDeployment(record))) throw new NotFound("deployment", id);
  return null;
}

/**
 * Online: the status and the counts, which replace the previous ones (indexes left out have none);
 * every index named must be one of the deployment's. Offline: the status, and no counts if `clear_metrics`.
 */
export async function updateMetrics(caller: Caller, id: string, body: UpdateMetricsBody): Promise<null> {
  const now = new Date().toISOString();
  for (let attempt = 0; attempt < METRICS_ATTEMPTS; attempt += 1) {
    const record = await found(caller, id);
    let written: boolean;
    if (body.status === "online") {
      requireKnownIndexes(record, body.index_metrics);
      const indexCounts = Object.fromEntries(body.index_metrics.map((m) => [m.name, m.document_count]));
      written = await retrievalStore.setMetrics(record, { status: "online", documentCount: body.document_count, indexCounts, revision: record.revision, now });
    } else {
      const cleared = body.clear_metrics ? { documentCount: 0, indexCounts: {} } : {};
      written = await retrievalStore.setMetrics(record, { status: "offline", ...cleared, now });
    }
    if (written) return null;
  }
  throw new Conflict("The deployment was re-registered while its metrics were being updated; try again", "deployment_changed");
}
