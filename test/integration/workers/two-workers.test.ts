/**
 * Issue 13's deployment scenarios with two reference workers on one deployment, against the embedded API,
 * the local Step Functions and the example workflow: stop holds tasks and start releases them; a worker
 * killed mid-task is seen inactive after the liveness window and its task is retried on the other; restart
 * reaches both workers and each registers again; a hardened deployment refuses another key's worker (403),
 * its polls and its task calls.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { runWorker, type WorkflowModule } from "../../../scripts/worker/run-worker.js";
import { useWorkerCleanup } from "../../support/local-process.js";
import { LIVENESS_WINDOW_MS } from "../../../shared/domain/workflows/liveness.js";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { workersClient } from "../../support/workers-client.js";
import { workflowsClient } from "../../support/workflow-builders.js";

const QUICK_MODULE = join(ROOT_DIR, "test/support/workflow-modules/summarize-quick-heartbeat.mjs");
const quick = (await import(QUICK_MODULE)) as WorkflowModule;
const WORKFLOW = "summarize-quick-heartbeat";
const TEXT = "Two workers serve one deployment. One of them may stop, restart or die; the work goes on.";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const { workers, children } = useWorkerCleanup();

afterEach(() => {
  vi.useRealTimers();
});

let deploymentCount = 0;
const aDeploymentName = () => `pair-${++deploymentCount}-${Date.now().toString(36)}`;

async function attach(deployment: string, name: string, key = tenant.key, module: WorkflowModule = quick) {
  const worker = runWorker({ url: api.url, key, deployment, name, module, pollWaitSeconds: 1, concurrency: 1, registerEveryMs: 60_000, log: () => {} });
  workers.push(worker);
  return worker;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Event = { event_type: string; attributes: { activity_name?: string; attempt?: number } };
const eventsOf = async (executionId: string) => (await http.events({ workflow_exec_id: executionId, limit: "100" })).body.events as Event[];
const statusOf = async (executionId: string) => (await http.execution(executionId)).body.status as string;
const dep = (name: string, tail = "") => `/v1/workflows/deployments/${name}${tail}`;

describe("POST /v1/workflows/deployments/{name}/stop with two reference workers attached", () => {
  it("holds the execution's tasks while stopped (neither worker gets one); POST /v1/workflows/deployments/{name}/start releases them", { timeout: 60_000 }, async () => {
    const deployment = aDeploymentName();
    await (await attach(deployment, "left")).registered;
    await (await attach(deployment, "right")).registered;
    expect((await http.request("GET", dep(deployment))).body).toMatchObject({ worker_count: 2, active_worker_count: 2 });

    expect((await http.request("POST", dep(deployment, "/stop"))).status).toBe(202);
    const started = await http.execute(WORKFLOW, { input: { text: TEXT }, execution_id: `${deployment}-held`, deployment_name: deployment });
    expect(started.status).toBe(200);
    // Two full polls of each worker (1 s each) see nothing: the task waits in the queue.
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await eventsOf(`${deployment}-held`)).some((e) => e.event_type === "ACTIVITY_TASK_STARTED")).toBe(false);
    expect(await statusOf(`${deployment}-held`)).toBe("RUNNING");

    expect((await http.request("POST", dep(deployment, "/start"))).status).toBe(202);
    expect(await until(() => statusOf(`${deployment}-held`), (s) => s !== "RUNNING", "the released execution")).toBe("COMPLETED");
  });
});

describe("POST /v1/workflows/deployments/{name}/restart with two reference workers attached", () => {
  it("each worker hears restart_requested, finishes, registers again (which clears it) and keeps serving", { timeout: 60_000 }, async () => {
    const deployment = aDeploymentName();
    const left = await attach(deployment, "left");
    const right = await attach(deployment, "right");
    await Promise.all([left.registered, right.registered]);

    expect((await http.request("POST", dep(deployment, "/restart"))).status).toBe(202);
    await until(async () => [left.restarts(), right.restarts()], ([l, r]) => l === 1 && r === 1, "both workers restarted");
    // The flag is cleared by their register: a poll now answers restart_requested false.
    expect((await workersClient(api, tenant, { deployment, name: "left" }).poll()).body.restart_requested).toBe(false);

    const started = await http.execute(WORKFLOW, { input: { text: TEXT }, execution_id: `${deployment}-after`, deployment_name: deployment });
    expect(started.status).toBe(200);
    expect(await until(() => statusOf(`${deployment}-after`), (s) => s !== "RUNNING", "an execution after the restart")).toBe("COMPLETED");
    expect([left.restarts(), right.restarts()]).toEqual([1, 1]);
  });
});

describe("GET /v1/workflows/deployments/{name}/workers after a worker is killed mid-task", () => {
  it("retries the task on the other worker, and shows the killed one inactive after the liveness window", { timeout: 90_000 }, async () => {
    const deployment = aDeploymentName();
    // A worker process whose Summarize never finishes, killed once it holds the task.
    const doomed = spawn(join(ROOT_DIR, "node_modules/.bin/tsx"), ["scripts/worker.ts", "--deployment", deployment, "--module", QUICK_MODULE, "--url", api.url, "--key", tenant.key, "--name", "doomed", "--concurrency", "1"], {
      cwd: ROOT_DIR,
      env: { ...process.env, WORKER_HANGS: "1" },
      stdio: "ignore",
      detached: true,
    });
    children.push(doomed);
    const execution = `${deployment}-killed`;
    // Until the doomed worker has registered the workflow in its deployment, execute answers 404.
    await until(() => http.execute(WORKFLOW, { input: { text: TEXT }, execution_id: execution, deployment_name: deployment }), (r) => r.status === 200, "the doomed worker registered");
    await until(() => eventsOf(execution), (events) => events.some((e) => e.event_type === "ACTIVITY_TASK_STARTED" && e.attributes.activity_name === "summarize"), "the doomed worker holds Summarize");

    // The second worker attaches while the first holds the task; then the first dies.
    await (await attach(deployment, "survivor")).registered;
    process.kill(-doomed.pid!, "SIGKILL");

    expect(await until(() => statusOf(execution), (s) => s !== "RUNNING", "the retried execution", 60_000)).toBe("COMPLETED");
    expect((await eventsOf(execution)).some((e) => e.event_type === "ACTIVITY_TASK_RETRYING" && e.attributes.activity_name === "summarize" && e.attributes.attempt === 2)).toBe(true);

    // The liveness window passes (the clock moves; the survivor keeps polling, so it beats again).
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + LIVENESS_WINDOW_MS + 5_000);
    const listed = await until(
      async () => (await http.request("GET", dep(deployment, "/workers"))).body.workers as { name: string; is_active: boolean }[],
      (list) => list.find((w) => w.name === "survivor")?.is_active === true,
      "the survivor beat after the window",
    );
    expect(Object.fromEntries(listed.map((w) => [w.name, w.is_active]))).toEqual({ doomed: false, survivor: true });
    expect((await http.request("GET", dep(deployment, "/workers"), { query: { worker_status: "inactive" } })).body.workers.map((w: { name: string }) => w.name)).toEqual(["doomed"]);
  });
});

describe("POST /v1/workflows/deployments/{name}/principals with two workers' keys", () => {
  it("a hardened deployment refuses another key's worker (403 on register, poll and task calls); its own principal's worker serves it", { timeout: 60_000 }, async () => {
    const deployment = aDeploymentName();
    await (await attach(deployment, "owner")).registered;
    const stranger = await newTenant({ workspace: tenant.caller.workspace, organization: tenant.caller.organization, roles: ["workspace_contributor"] });
    expect((await http.request("POST", dep(deployment, "/principals"), { json: { add: [tenant.caller.keyId] } })).status).toBe(200);

    const intruder = runWorker({ url: api.url, key: stranger.key, deployment, name: "intruder", module: quick, pollWaitSeconds: 1, log: () => {} });
    await expect(intruder.registered).rejects.toThrow(/403/);
    await intruder.stop();
    const asStranger = workersClient(api, stranger, { deployment, name: "intruder" });
    expect((await asStranger.poll()).status).toBe(403);
    expect((await asStranger.heartbeat("00000000-0000-4000-8000-000000000000")).status).toBe(403);

    const started = await http.execute(WORKFLOW, { input: { text: TEXT }, execution_id: `${deployment}-hardened`, deployment_name: deployment });
    expect(started.status).toBe(200);
    expect(await until(() => statusOf(`${deployment}-hardened`), (s) => s !== "RUNNING", "the hardened deployment's execution")).toBe("COMPLETED");
  });
});
