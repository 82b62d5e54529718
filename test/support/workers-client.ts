import type { RunningApi } from "../../infra/local/server.js";
import type { RunRecord } from "../../shared/domain/workflows/records.js";
import { workflowRegistry } from "../../shared/store/workflows/registry.js";
import { runStore } from "../../shared/store/workflows/runs.js";
import { taskStore, type StoredTask } from "../../shared/store/workflows/tasks.js";
import { filesClient, type ApiReply } from "./files-client.js";
import type { TestTenant } from "./tenant.js";
import { aDeployment, aRun, aTask } from "./workflow-builders.js";

/** The worker protocol routes of one running server as one tenant's worker sees them, over plain HTTP. */
export function workersClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">, worker: { deployment: string; name: string } = { deployment: "pool", name: "w1" }) {
  const { request } = filesClient(api, tenant);
  const who = { deployment_name: worker.deployment, worker_name: worker.name };
  const task = (id: string, verb: string) => `/v1/workflows/tasks/${encodeURIComponent(id)}/${verb}`;
  return {
    register: (body: Record<string, unknown>): Promise<ApiReply> => request("POST", "/v1/workflows/register", { json: { deployment_name: worker.deployment, worker_name: worker.name, ...body } }),
    poll: (body: Record<string, unknown> = {}): Promise<ApiReply> => request("POST", "/v1/workflows/workers/poll", { json: { ...who, wait_seconds: 0, ...body } }),
    whoami: (): Promise<ApiReply> => request("GET", "/v1/workflows/workers/whoami"),
    heartbeat: (id: string, body: Record<string, unknown> = {}): Promise<ApiReply> => request("POST", task(id, "heartbeat"), { json: { ...who, ...body } }),
    complete: (id: string, body: Record<string, unknown> = {}): Promise<ApiReply> => request("POST", task(id, "complete"), { json: { ...who, ...body } }),
    fail: (id: string, body: Record<string, unknown> = {}): Promise<ApiReply> => request("POST", task(id, "fail"), { json: { ...who, ...body } }),
  };
}

/**
 * A deployment with a running run and `count` PENDING tasks of it, written straight to the stores (the
 * dispatcher makes tasks; these have tokens no engine knows).
 */
export async function seededTasks(tenant: Pick<TestTenant, "caller">, count: number, options: { deployment?: string; run?: Partial<RunRecord>; stopped?: boolean } = {}): Promise<{ run: RunRecord; tasks: StoredTask[] }> {
  const workspace = tenant.caller.workspace;
  const deploymentName = options.deployment ?? "pool";
  await workflowRegistry.ensureDeployment(aDeployment({ workspace, name: deploymentName, stopped: options.stopped ?? false }));
  const run = aRun({ workspace, deploymentName, ...options.run });
  await runStore.start(run, null);
  const tasks: StoredTask[] = [];
  const now = Date.now();
  for (let i = 0; i < count; i += 1) {
    const task = aTask(run, { createdAtMs: now + i, input: { n: i } });
    await taskStore.create(task);
    tasks.push(task);
  }
  return { run, tasks };
}
