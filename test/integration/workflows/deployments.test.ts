/**
 * Workflow deployments through the local API Gateway stand-in against DynamoDB Local: the verbs' effects
 * on a pool (stop holds its tasks, start releases them, restart reaches the workers' polls, delete
 * refuses while executions run and then stops routing), the managed record, and tenant isolation.
 */
import { describe, expect, it } from "vitest";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";
import { seededTasks, workersClient } from "../../support/workers-client.js";
import { seedRegistration, seedRun, seedWorker, workflowsClient } from "../../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi();
const ws = () => tenant.caller.workspace;
const http = () => filesClient(api, tenant);
const dep = (name: string, tail = "") => `/v1/workflows/deployments/${encodeURIComponent(name)}${tail}`;
const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

describe("GET /v1/workflows/deployments", () => {
  it("lists the workspace's active deployments with next_cursor and workspace_id, all with active_only=false", async () => {
    const live = unique("live");
    const idle = unique("idle");
    await seedRegistration(ws(), { registration: { deploymentName: live } });
    await seedRegistration(ws(), { registration: { deploymentName: idle } });
    await seedWorker(ws(), live);

    const active = await http().request("GET", "/v1/workflows/deployments");
    const all = await http().request("GET", "/v1/workflows/deployments", { query: { active_only: false, limit: 100 } });

    expect(active.status).toBe(200);
    expect(active.body.workspace_id).toBe(ws());
    expect(active.body.deployments.map((d: { name: string }) => d.name)).toContain(live);
    expect(active.body.deployments.map((d: { name: string }) => d.name)).not.toContain(idle);
    expect(all.body.deployments.map((d: { name: string }) => d.name)).toEqual(expect.arrayContaining([live, idle]));
    expect(all.body).toHaveProperty("next_cursor", null);
    expect((await http().request("GET", "/v1/workflows/deployments", { query: { limit: 0 } })).status).toBe(422);
  });

  it("shows nothing of another workspace's deployments (tenant isolation)", async () => {
    const other = await newTenant();
    const theirs = unique("theirs");
    await seedRegistration(other.caller.workspace, { registration: { deploymentName: theirs } });
    await seedWorker(other.caller.workspace, theirs);

    const listed = await http().request("GET", "/v1/workflows/deployments", { query: { active_only: false, limit: 100 } });
    expect(listed.body.deployments.map((d: { name: string }) => d.name)).not.toContain(theirs);
    expect((await http().request("GET", dep(theirs))).status).toBe(404);
    expect((await http().request("POST", dep(theirs, "/stop"))).status).toBe(404);
    expect((await workflowRegistry.getDeployment(other.caller.workspace, theirs))!.stopped).toBe(false);
  });
});

describe("GET /v1/workflows/deployments/{name}", () => {
  it("answers the detail with workers and liveness; 404 for an unknown name", async () => {
    const name = unique("pool");
    await seedRegistration(ws(), { registration: { deploymentName: name } });
    await seedWorker(ws(), name);
    await seedWorker(ws(), name, 120_000);

    const detail = await http().request("GET", dep(name));

    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ name, is_active: true, worker_count: 2, active_worker_count: 1, managed: null, is_hardened: false });
    expect(detail.body.workers).toHaveLength(2);
    expect((await http().request("GET", dep("no-such-deployment"))).body.code).toBe("WF_1100");
  });
});

describe("GET /v1/workflows/deployments/{name}/workers", () => {
  it("pages the workers with next_cursor", async () => {
    const name = unique("pool");
    await seedRegistration(ws(), { registration: { deploymentName: name } });
    for (let i = 0; i < 3; i += 1) await seedWorker(ws(), name);

    const first = await http().request("GET", dep(name, "/workers"), { query: { limit: 2 } });
    const second = await http().request("GET", dep(name, "/workers"), { query: { limit: 2, cursor: first.body.next_cursor } });

    expect(first.status).toBe(200);
    expect(first.body.workers).toHaveLength(2);
    expect(second.body).toMatchObject({ next_cursor: null });
    expect(second.body.workers).toHaveLength(1);
    expect((await http().request("GET", dep("no-such-deployment", "/workers"))).status).toBe(404);
  });
});

describe("POST /v1/workflows/deployments", () => {
  it("stores a managed record (202, Pending, no build runtime), takes repo_url, 409 on a taken name, 422 without a repository", async () => {
    const name = unique("managed");
    const created = await http().request("POST", "/v1/workflows/deployments", { json: { name, spec: { repo_url: "https://github.com/acme/worker" } } });

    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ name, spec: { github_url: "https://github.com/acme/worker" }, status: { phase: "Pending" }, stopped: false });
    expect(created.body.status.message).toMatch(/No build runtime/);
    expect((await http().request("POST", "/v1/workflows/deployments", { json: { name, spec: { github_url: "https://x" } } })).status).toBe(409);
    expect((await http().request("POST", "/v1/workflows/deployments", { json: { name: unique("m"), spec: {} } })).status).toBe(422);
    expect((await http().request("GET", dep(name))).body).toMatchObject({ managed: { name }, locations: ["managed"], owner: tenant.caller.principal });
  });
});

describe("PATCH /v1/workflows/deployments/{name}", () => {
  it("changes the supplied fields (202); 404 for an unknown name; 422 for a bad body", async () => {
    const name = unique("managed");
    await http().request("POST", "/v1/workflows/deployments", { json: { name, spec: { github_url: "https://github.com/acme/w" } } });

    const patched = await http().request("PATCH", dep(name), { json: { spec: { revision: "v2" }, resources: { replicas: 3 } } });

    expect(patched.status).toBe(202);
    expect(patched.body).toMatchObject({ spec: { github_url: "https://github.com/acme/w", revision: "v2" }, resources: { replicas: 3 } });
    expect((await http().request("PATCH", dep("no-such-deployment"), { json: { resources: { replicas: 1 } } })).status).toBe(404);
    expect((await http().request("PATCH", dep(name), { json: { resources: { replicas: "many" } } })).status).toBe(422);
  });
});

describe("POST /v1/workflows/deployments/{name}/stop", () => {
  it("holds the pool's tasks: a poll gets none while it is stopped, the task waits and is handed out after start", async () => {
    const name = unique("pool");
    const { tasks } = await seededTasks(tenant, 1, { deployment: name });
    const worker = workersClient(api, tenant, { deployment: name, name: "w1" });

    const stopped = await http().request("POST", dep(name, "/stop"));
    const held = await worker.poll();

    expect(stopped.status).toBe(202);
    expect(stopped.body).toMatchObject({ name, stopped: true });
    expect(held.body.task).toBeNull();

    expect((await http().request("POST", dep(name, "/start"))).status).toBe(202);
    expect((await worker.poll()).body.task.task_id).toBe(tasks[0]!.taskId);
  });
});

describe("POST /v1/workflows/deployments/{name}/start", () => {
  it("releases a stopped pool (202, stopped false); 404 for an unknown name", async () => {
    const name = unique("pool");
    await seededTasks(tenant, 0, { deployment: name, stopped: true });

    const started = await http().request("POST", dep(name, "/start"));

    expect(started.status).toBe(202);
    expect(started.body.stopped).toBe(false);
    expect((await http().request("POST", dep("no-such-deployment", "/start"))).status).toBe(404);
  });
});

describe("POST /v1/workflows/deployments/{name}/restart", () => {
  it("tells the pool's workers through their poll answer, until they register again", async () => {
    const name = unique("pool");
    await seededTasks(tenant, 0, { deployment: name });
    const worker = workersClient(api, tenant, { deployment: name, name: "w1" });
    expect((await worker.poll()).body.restart_requested).toBe(false);

    const restarted = await http().request("POST", dep(name, "/restart"));

    expect(restarted.status).toBe(202);
    expect(restarted.body.spec.restarted_at).toEqual(expect.any(String));
    expect((await worker.poll()).body.restart_requested).toBe(true);
    await workflowRegistry.heartbeat({ workspace: ws(), deploymentName: name, name: "w1", lastHeartbeatMs: Date.now(), workflows: [], principal: "p" });
    expect((await worker.poll()).body.restart_requested).toBe(false);
  });
});

describe("DELETE /v1/workflows/deployments/{name}", () => {
  it("refuses while an execution runs (409), deletes with force=true (202), and execute no longer routes there", async () => {
    const name = unique("pool");
    const seeded = await seedRegistration(ws(), { registration: { deploymentName: name } });
    await seedRun(ws(), { status: "RUNNING" }, seeded);

    const refused = await http().request("DELETE", dep(name));
    const forced = await http().request("DELETE", dep(name), { query: { force: true } });
    const execute = await workflowsClient(api, tenant).execute(seeded.workflow.name, { deployment_name: name });

    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("WF_1102");
    expect(forced.status).toBe(202);
    expect((await http().request("GET", dep(name))).status).toBe(404);
    expect(execute.status).toBe(404);
    expect((await http().request("DELETE", dep(name))).status).toBe(404);
  });
});

describe("POST /v1/workflows/deployments/{deployment_id}/unharden", () => {
  it("clears the authorized principals for a workspace admin; 403 for a member; 404 for an unknown id; 422 for a non-uuid", async () => {
    const name = unique("hard");
    const created = await http().request("POST", "/v1/workflows/deployments", { json: { name, spec: { github_url: "https://x" }, hardened: true } });
    expect(created.body.is_hardened).toBe(true);
    const admin = await newTenant({ workspace: ws(), organization: tenant.caller.organization, roles: ["workspace_admin"] });
    const member = await newTenant({ workspace: ws(), organization: tenant.caller.organization, roles: ["workspace_contributor"] });
    const path = `/v1/workflows/deployments/${created.body.service_id}/unharden`;

    expect((await filesClient(api, member).request("POST", path)).status).toBe(403);
    const done = await filesClient(api, admin).request("POST", path);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ name, is_hardened: false });
    expect((await filesClient(api, admin).request("POST", "/v1/workflows/deployments/00000000-0000-4000-8000-000000000000/unharden")).status).toBe(404);
    expect((await filesClient(api, admin).request("POST", "/v1/workflows/deployments/not-a-uuid/unharden")).status).toBe(422);
  });
});

describe("POST /v1/workflows/deployments/{name}/principals", () => {
  it("hardens a deployment: another key's register gets 403, an authorized one's passes; unharden lifts it; members get 403, unknown names 404", async () => {
    const name = unique("hard");
    const created = await http().request("POST", "/v1/workflows/deployments", { json: { name, spec: { github_url: "https://x" } } });
    const other = await newTenant({ workspace: ws(), organization: tenant.caller.organization, roles: ["workspace_contributor"] });
    const register = (key: typeof tenant) =>
      workersClient(api, key, { deployment: name, name: "w1" }).register({ definitions: [{ name: unique("wf"), definition: { input_schema: { type: "object" } }, program: { StartAt: "Done", States: { Done: { Type: "Pass", End: true } } } }] });

    const hardened = await http().request("POST", dep(name, "/principals"), { json: { add: [tenant.caller.keyId] } });
    expect(hardened.status).toBe(200);
    expect(hardened.body).toEqual({ id: created.body.service_id, name, is_hardened: true, authorized_principals: [tenant.caller.keyId] });
    expect((await http().request("GET", dep(name))).body.is_hardened).toBe(true);

    const refused = await register(other);
    expect(refused.status).toBe(403);
    expect(refused.body.detail ?? refused.body.message).toMatch(/hardened/);
    expect((await register(tenant)).status).toBe(200);

    expect((await filesClient(api, other).request("POST", dep(name, "/principals"), { json: { add: [other.caller.keyId] } })).status).toBe(403);
    expect((await http().request("POST", dep("no-such-deployment", "/principals"), { json: { add: ["k"] } })).status).toBe(404);
    expect((await http().request("POST", dep(name, "/principals"), { json: {} })).status).toBe(422);

    expect((await http().request("POST", `/v1/workflows/deployments/${created.body.service_id}/unharden`)).status).toBe(200);
    expect((await register(other)).status).toBe(200);
  });
});

describe("POST /v1/workflows/deployments/{name}/stop while a poll waits", () => {
  it("holds a task that arrives during a long poll begun before the stop", async () => {
    const name = unique("pool");
    const { run } = await seededTasks(tenant, 0, { deployment: name });
    const worker = workersClient(api, tenant, { deployment: name, name: "w1" });
    const { aTask } = await import("../../support/workflow-builders.js");
    const { taskStore } = await import("../../../shared/store/workflows/tasks.js");

    const waiting = worker.poll({ wait_seconds: 2 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await http().request("POST", dep(name, "/stop"));
    await taskStore.create(aTask(run));

    expect((await waiting).body.task).toBeNull();
  });
});
