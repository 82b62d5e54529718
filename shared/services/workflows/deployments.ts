import { randomUUID } from "node:crypto";
import * as z from "zod";
import type { Caller } from "../../domain/caller.js";
import { ApiError, InvalidPageToken, Unprocessable } from "../../domain/errors.js";
import { isWorkerActive } from "../../domain/workflows/liveness.js";
import { adoptedPrincipals, isLegacyOpen } from "../../domain/workflows/ownership.js";
import type { DeploymentRecord, ManagedSpec, WorkerRecord } from "../../domain/workflows/records.js";
import type { CreateDeploymentRequest, DeploymentListQuery, ManagedDeploymentOut, PrincipalsRequest, UpdateDeploymentRequest, WorkerListQuery } from "../../schemas/deployments.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { runStore } from "../../store/workflows/runs.js";
import { recordAudit } from "../audit/record.js";
import { assertMayAct, principalOf } from "./workers.js";

/**
 * Workflow deployments (docs/workflows.md, "Deployments"). A deployment is a pool of workers: made by
 * its first worker's register, or created here as a managed record. What the verbs do to a pool: stop
 * holds its tasks (polls get none) until start, restart flags its workers (their poll answers say
 * `restart_requested`), delete refuses while executions of it run unless `force=true`, and then routing
 * skips its registrations. No build runtime exists in this installation: a managed deployment is stored
 * and reported as such ("Pending"), nothing is built or run for it.
 */

export const NO_BUILD_RUNTIME =
  "No build runtime is configured in this installation: the repository and resources are stored, nothing is built or run. Workers that register with this deployment name serve it.";

class DeploymentNotFound extends ApiError {
  constructor(what: string) {
    super(404, "not_found_error", `Deployment '${what}' not found`, "deployment_not_found", null, { familyCodes: { workflow: "WF_1100" } });
  }
}

class DeploymentConflict extends ApiError {
  constructor(message: string, code: string) {
    super(409, "conflict_error", message, code, null, { familyCodes: { workflow: "WF_1102" } });
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

interface Pool {
  deployment: DeploymentRecord;
  workers: WorkerRecord[];
  active: number;
  lastHeartbeatMs: number | null;
}

async function poolOf(deployment: DeploymentRecord, nowMs: number): Promise<Pool> {
  const workers = await workflowRegistry.listWorkers(deployment.workspace, deployment.name);
  const active = workers.filter((w) => isWorkerActive(w, nowMs)).length;
  const lastHeartbeatMs = workers.length ? Math.max(...workers.map((w) => w.lastHeartbeatMs)) : null;
  return { deployment, workers, active, lastHeartbeatMs };
}

const emptyResources = (): ManagedSpec["resources"] => ({ replicas: null, cpu_request: null, cpu_limit: null, memory_request: null, memory_limit: null });

/** The 202 body (OA:ManagedDeploymentResponse), of a managed record or filled from a self-hosted pool's. */
export function toManagedOut(pool: Pool): ManagedDeploymentOut {
  const { deployment: d, active } = pool;
  const managed = d.managed ?? null;
  const phase = d.stopped ? "Stopped" : managed ? "Pending" : active > 0 ? "Running" : "Idle";
  const message = managed
    ? NO_BUILD_RUNTIME
    : `Self-hosted worker pool: its workers run outside this installation (${active} of ${pool.workers.length} active)${d.stopped ? "; stopped: its tasks are held until start" : ""}`;
  return {
    service_id: d.id,
    name: d.name,
    spec: {
      github_url: managed?.githubUrl ?? "",
      type: "workflows_worker",
      revision: managed?.revision ?? null,
      backend_spec: null,
      entrypoint: managed?.entrypoint ?? null,
      working_dir: managed?.workingDir ?? null,
      restarted_at: d.restartedAt ?? null,
      commit_sha: null,
      commit: null,
    },
    resources: managed?.resources ?? emptyResources(),
    status: {
      phase,
      available_replicas: active,
      ready_replicas: active,
      endpoint: null,
      message,
      last_seen: pool.lastHeartbeatMs === null ? null : iso(pool.lastHeartbeatMs),
      deployed_revision: null,
      generation: null,
      build_state: null,
    },
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    stopped: d.stopped,
    rollout_status: d.rolloutStatus ?? null,
    created_by: d.createdBy ?? null,
    updated_by: d.updatedBy ?? null,
    deployed_by: null,
    deployed_at: null,
    is_hardened: (d.principals ?? []).length > 0,
  };
}

const LOCAL = { location_type: "local" as const, k8s_cluster: null, k8s_namespace: null };

export const toWorkerOut = (worker: WorkerRecord, nowMs: number) => ({
  name: worker.name,
  // Worker records keep their last heartbeat only: a worker is as old as its last sign of life.
  created_at: iso(worker.lastHeartbeatMs),
  updated_at: iso(worker.lastHeartbeatMs),
  last_heartbeat: iso(worker.lastHeartbeatMs),
  is_active: isWorkerActive(worker, nowMs),
  location: LOCAL,
});

export function toDeploymentOut(pool: Pool) {
  const d = pool.deployment;
  const locations: ("local" | "managed")[] = [];
  if (d.managed) locations.push("managed");
  if (pool.workers.length) locations.push("local");
  return {
    id: d.id,
    name: d.name,
    is_active: pool.active > 0,
    is_hardened: (d.principals ?? []).length > 0,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    last_heartbeat: pool.lastHeartbeatMs === null ? null : iso(pool.lastHeartbeatMs),
    owner: d.owner ?? null,
    location: null,
    worker_count: pool.workers.length,
    active_worker_count: pool.active,
    locations,
    stopped: d.stopped,
    managed: d.managed ? toManagedOut(pool) : null,
  };
}

const listCursor = z.strictObject({ b: z.enum(["created_at", "updated_at"]), o: z.enum(["asc", "desc"]), k: z.string().max(100), n: z.string().max(200) });

/** GET /v1/workflows/deployments: filtered in memory (a workspace has tens of deployments), paged by (time, name). */
export async function list(caller: Caller, query: DeploymentListQuery) {
  const nowMs = Date.now();
  const by = query.order_by ?? "created_at";
  const position = query.cursor === undefined ? undefined : readCursor(query.cursor, listCursor, "cursor");
  if (position && (position.b !== by || position.o !== query.order)) throw new InvalidPageToken("cursor");
  // Another workspace's id names nothing the caller may see.
  if (query.workspace_id && query.workspace_id !== caller.workspace) return { deployments: [], next_cursor: null, workspace_id: caller.workspace };
  let deployments = await workflowRegistry.listDeployments(caller.workspace);
  if (query.workflow_name) {
    const serving = new Set((await workflowRegistry.listRegistrations(caller.workspace)).filter((r) => r.workflowName === query.workflow_name).map((r) => r.deploymentName));
    deployments = deployments.filter((d) => serving.has(d.name));
  }
  if (query.search) deployments = deployments.filter((d) => d.name.toLowerCase().includes(query.search!.toLowerCase()));
  if (query.is_hardened !== undefined) deployments = deployments.filter((d) => (d.principals ?? []).length > 0 === query.is_hardened);
  if (query.created_by) deployments = deployments.filter((d) => d.createdBy === query.created_by);
  const keyOf = (d: DeploymentRecord) => (by === "created_at" ? d.createdAt : d.updatedAt);
  const sign = query.order === "asc" ? 1 : -1;
  deployments.sort((a, b) => sign * (keyOf(a).localeCompare(keyOf(b)) || a.name.localeCompare(b.name)));
  if (position) deployments = deployments.filter((d) => sign * (keyOf(d).localeCompare(position.k) || d.name.localeCompare(position.n)) > 0);
  const out: Pool[] = [];
  let more = false;
  for (const deployment of deployments) {
    const pool = await poolOf(deployment, nowMs);
    if (query.active_only && pool.active === 0) continue;
    if (query.location_types?.length && !toDeploymentOut(pool).locations.some((l) => query.location_types!.includes(l))) continue;
    if (out.length === query.limit) {
      more = true;
      break;
    }
    out.push(pool);
  }
  const last = out.at(-1)?.deployment;
  return {
    deployments: out.map(toDeploymentOut),
    next_cursor: more && last ? encodeCursor({ b: by, o: query.order, k: keyOf(last), n: last.name }) : null,
    workspace_id: caller.workspace,
  };
}

async function found(caller: Caller, name: string): Promise<DeploymentRecord> {
  const deployment = await workflowRegistry.getDeployment(caller.workspace, name);
  if (!deployment) throw new DeploymentNotFound(name);
  return deployment;
}

/** GET /v1/workflows/deployments/{name}: with its workers (only those serving `workflow_name` when given). */
export async function get(caller: Caller, name: string, workflowName?: string) {
  const nowMs = Date.now();
  const pool = await poolOf(await found(caller, name), nowMs);
  const workers = workflowName ? pool.workers.filter((w) => w.workflows.includes(workflowName)) : pool.workers;
  return { ...toDeploymentOut(pool), workers: workers.toSorted((a, b) => a.name.localeCompare(b.name)).map((w) => toWorkerOut(w, nowMs)) };
}

const workerCursor = z.strictObject({ w: z.string().max(300) });

export async function listWorkers(caller: Caller, name: string, query: WorkerListQuery) {
  const nowMs = Date.now();
  const position = query.cursor === undefined ? undefined : readCursor(query.cursor, workerCursor, "cursor");
  await found(caller, name);
  let workers = (await workflowRegistry.listWorkers(caller.workspace, name)).toSorted((a, b) => a.name.localeCompare(b.name));
  if (query.worker_status) workers = workers.filter((w) => isWorkerActive(w, nowMs) === (query.worker_status === "active"));
  if (position) workers = workers.filter((w) => w.name > position.w);
  const page = workers.slice(0, query.limit);
  return { workers: page.map((w) => toWorkerOut(w, nowMs)), next_cursor: workers.length > query.limit ? encodeCursor({ w: page.at(-1)!.name }) : null };
}

function managedSpec(spec: NonNullable<UpdateDeploymentRequest["spec"]>, resources: UpdateDeploymentRequest["resources"], base: ManagedSpec | null): ManagedSpec {
  const githubUrl = spec.github_url ?? spec.repo_url ?? base?.githubUrl;
  if (!githubUrl) throw new Unprocessable([{ loc: ["body", "spec", "github_url"], msg: "A deployment without a repository needs spec.github_url (or spec.repo_url)", type: "missing" }]);
  const pick = <T>(value: T | null | undefined, fallback: T | null) => (value === undefined ? fallback : value);
  const r = base?.resources ?? emptyResources();
  return {
    githubUrl,
    revision: pick(spec.revision, base ? base.revision : "main"),
    entrypoint: pick(spec.entrypoint, base ? base.entrypoint : "worker:main"),
    workingDir: pick(spec.working_dir, base?.workingDir ?? null),
    resources: {
      replicas: pick(resources?.replicas, r.replicas),
      cpu_request: pick(resources?.cpu_request, r.cpu_request),
      cpu_limit: pick(resources?.cpu_limit, r.cpu_limit),
      memory_request: pick(resources?.memory_request, r.memory_request),
      memory_limit: pick(resources?.memory_limit, r.memory_limit),
    },
  };
}

/** POST /v1/workflows/deployments: a managed record, honestly "Pending" (no build runtime here); 409 on a taken name. */
export async function create(caller: Caller, request: CreateDeploymentRequest): Promise<ManagedDeploymentOut> {
  const now = new Date().toISOString();
  const deployment: DeploymentRecord = {
    id: randomUUID(),
    workspace: caller.workspace,
    name: request.name,
    createdAt: now,
    updatedAt: now,
    stopped: false,
    owner: caller.principal,
    managed: managedSpec(request.spec, request.resources, null),
    // Hardened by default (decision 0042): the creator is its first principal. `hardened: false` (which the SDK
    // always sends unless told otherwise) leaves the set empty for the first worker that registers to take.
    principals: request.hardened === false ? [] : [principalOf(caller)],
    restartedAt: null,
    rolloutStatus: "Pending",
    createdBy: caller.principal,
    updatedBy: caller.principal,
  };
  if (!(await workflowRegistry.createDeployment(deployment))) throw new DeploymentConflict(`Deployment '${request.name}' already exists`, "deployment_exists");
  if (deployment.principals?.length) await recordHardening(caller, deployment.id, [], deployment.principals);
  return toManagedOut({ deployment, workers: [], active: 0, lastHeartbeatMs: null });
}

async function changed(caller: Caller, name: string, fields: Parameters<typeof workflowRegistry.updateDeployment>[2]): Promise<ManagedDeploymentOut> {
  const updated = await workflowRegistry.updateDeployment(caller.workspace, name, { ...fields, updatedAt: new Date().toISOString(), updatedBy: caller.principal });
  if (!updated) throw new DeploymentNotFound(name);
  return toManagedOut(await poolOf(updated, Date.now()));
}

/** PATCH: only the supplied fields of the stored spec and resources change. */
export async function update(caller: Caller, name: string, request: UpdateDeploymentRequest): Promise<ManagedDeploymentOut> {
  const deployment = await found(caller, name);
  if (!request.spec && !request.resources) return toManagedOut(await poolOf(deployment, Date.now()));
  return changed(caller, name, { managed: managedSpec(request.spec ?? {}, request.resources, deployment.managed ?? null) });
}

/** Stop holds the pool's tasks (polls answer none; executions wait, nothing is lost) until start releases them. */
export const stop = (caller: Caller, name: string) => changed(caller, name, { stopped: true, rolloutStatus: "Stopped" });
export const start = (caller: Caller, name: string) => changed(caller, name, { stopped: false, rolloutStatus: "Running" });

/** Restart: every worker of the pool is flagged; its next poll answer says `restart_requested: true`, its next register clears it. */
export async function restart(caller: Caller, name: string): Promise<ManagedDeploymentOut> {
  await found(caller, name);
  await workflowRegistry.flagWorkersForRestart(caller.workspace, name);
  return changed(caller, name, { restartedAt: new Date().toISOString(), rolloutStatus: "Restarting" });
}

/**
 * DELETE: refused (409) while an execution routed to the deployment is RUNNING, unless `force`; a forced
 * delete leaves those executions as they are (their tasks wait; cancel or terminate them). Afterwards
 * execute no longer routes to its registrations and its workers' polls get nothing; a worker that
 * registers the name again makes a new (self-hosted) deployment.
 */
export async function remove(caller: Caller, name: string, force: boolean): Promise<ManagedDeploymentOut> {
  const deployment = await found(caller, name);
  if (!force) {
    const running = await runStore.listRuns(caller.workspace, {
      by: "start",
      order: "desc",
      // Limit applies before the filter: read in pages of 100 until one RUNNING run is found or none is left.
      limit: 100,
      filter: { FilterExpression: "#st = :running AND #dep = :dep", ExpressionAttributeNames: { "#st": "status", "#dep": "deploymentName" }, ExpressionAttributeValues: { ":running": "RUNNING", ":dep": name } },
    });
    const busy = running.items.find((run) => run.status === "RUNNING" && run.deploymentName === name);
    if (busy) throw new DeploymentConflict(`Deployment '${name}' has running executions (e.g. '${busy.executionId}'); stop them first or delete with force=true`, "deployment_in_use");
  }
  const pool = await poolOf(deployment, Date.now());
  if (!(await workflowRegistry.deleteDeployment(caller.workspace, name))) throw new DeploymentNotFound(name);
  return toManagedOut({ ...pool, deployment: { ...deployment, rolloutStatus: "Deleted", updatedAt: new Date().toISOString() } });
}

/**
 * POST …/{deployment_id}/unharden (workspace admins): clears the authorized principals and marks the
 * deployment open on purpose, so no register adopts it again (decision 0042). A hardening change: the
 * audit log records it here.
 */
export async function unharden(caller: Caller, deploymentId: string) {
  const deployment = (await workflowRegistry.listDeployments(caller.workspace)).find((d) => d.id === deploymentId);
  if (!deployment) throw new DeploymentNotFound(deploymentId);
  const now = new Date().toISOString();
  const updated = await workflowRegistry.updateDeployment(caller.workspace, deployment.name, { principals: [], openedAt: now, updatedAt: now, updatedBy: caller.principal });
  if (!updated) throw new DeploymentNotFound(deploymentId);
  await recordAudit({
    organization: caller.organization,
    workspace: caller.workspace,
    operation: "deployment.unharden",
    targets: [{ type: "deployment", id: deployment.id }],
    before: { principals: deployment.principals ?? [] },
    after: { principals: [] },
  });
  return toDeploymentOut(await poolOf(updated, Date.now()));
}

/** At most this many authorized principals per deployment (they are read on every register). */
export const MAX_PRINCIPALS = 100;

/**
 * POST …/{name}/principals (extension, workspace admins): adds and removes authorized principals; a
 * non-empty set hardens the deployment, and register then refuses (403) every other principal; removing
 * the last one opens it on purpose, as unharden does. A hardening change: the audit log records it here.
 */
export async function changePrincipals(caller: Caller, name: string, request: PrincipalsRequest) {
  const deployment = await found(caller, name);
  const set = new Set(deployment.principals ?? []);
  for (const p of request.add ?? []) set.add(p);
  for (const p of request.remove ?? []) set.delete(p);
  if (set.size > MAX_PRINCIPALS) throw new Unprocessable([{ loc: ["body", "add"], msg: `A deployment has at most ${MAX_PRINCIPALS} authorized principals`, type: "value_error" }]);
  const principals = [...set].sort();
  const now = new Date().toISOString();
  const updated = await workflowRegistry.updateDeployment(caller.workspace, name, { principals, ...(principals.length ? {} : { openedAt: now }), updatedAt: now, updatedBy: caller.principal });
  if (!updated) throw new DeploymentNotFound(name);
  await recordAudit({
    organization: caller.organization,
    workspace: caller.workspace,
    operation: "deployment.principals",
    targets: [{ type: "deployment", id: updated.id }],
    before: { principals: [...(deployment.principals ?? [])].sort() },
    after: { principals },
  });
  return { id: updated.id, name: updated.name, is_hardened: principals.length > 0, authorized_principals: principals };
}

/**
 * Register's guard: into a hardened deployment only its authorized principals may register (403 otherwise).
 * A deployment recorded before deployments were hardened by default is adopted first (`adoptLegacyDeployment`).
 */
export async function assertMayRegister(caller: Caller, name: string): Promise<DeploymentRecord | undefined> {
  let deployment = await workflowRegistry.getDeployment(caller.workspace, name);
  if (deployment && isLegacyOpen(deployment)) deployment = await adoptLegacyDeployment(caller, deployment);
  assertMayAct(caller, deployment, "register into it");
  return deployment;
}

/**
 * Hardens a deployment recorded before deployments were hardened by default (decision 0042), on its first
 * register since: its authorized set becomes the principals of the workers it has on record, or the
 * registering caller when it has none. Conditional on the record still being legacy, so concurrent
 * registers adopt it once. A hardening change made by a register: the audit log records it here.
 */
export async function adoptLegacyDeployment(caller: Caller, deployment: DeploymentRecord): Promise<DeploymentRecord | undefined> {
  const workers = await workflowRegistry.listWorkers(caller.workspace, deployment.name);
  const known = workers.map((w) => w.principal);
  const principals = adoptedPrincipals(known, caller) ?? [...new Set(known)].sort();
  await workflowRegistry.adoptDeployment(caller.workspace, deployment.name, principals, new Date().toISOString());
  const adopted = await workflowRegistry.getDeployment(caller.workspace, deployment.name);
  if (adopted?.principals?.length) await recordHardening(caller, adopted.id, deployment.principals ?? [], adopted.principals);
  return adopted;
}

/** A deployment hardened without an admin's principals call (made hardened, or adopted by a register): still a hardening change. */
function recordHardening(caller: Caller, deploymentId: string, before: string[], after: string[]) {
  return recordAudit({
    organization: caller.organization,
    workspace: caller.workspace,
    operation: "deployment.harden",
    targets: [{ type: "deployment", id: deploymentId }],
    before: { principals: [...before].sort() },
    after: { principals: [...after].sort() },
  });
}

/**
 * The deployment a register names, made when there is none: hardened, its first principal the registering caller
 * (a worker's key or service account), so the README's worker keeps serving it and nobody else registers into it
 * unasked. Making it hardened is a hardening change: the audit log records it, once, by whichever register made it.
 */
export async function ensureRegisteredDeployment(caller: Caller, name: string): Promise<void> {
  const now = new Date().toISOString();
  const fresh: DeploymentRecord = { id: randomUUID(), workspace: caller.workspace, name, createdAt: now, updatedAt: now, stopped: false, principals: [principalOf(caller)], createdBy: caller.principal, updatedBy: caller.principal };
  if (await workflowRegistry.createDeployment(fresh)) await recordHardening(caller, fresh.id, [], fresh.principals!);
}
