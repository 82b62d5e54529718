import { beforeEach, describe, expect, it } from "vitest";
import { handler as create } from "../../../functions/deployments/create.js";
import { handler as remove } from "../../../functions/deployments/delete.js";
import { handler as get } from "../../../functions/deployments/get.js";
import { handler as list } from "../../../functions/deployments/list.js";
import { handler as principals } from "../../../functions/deployments/principals.js";
import { handler as register } from "../../../functions/workers/register.js";
import { handler as restart } from "../../../functions/deployments/restart.js";
import { handler as start } from "../../../functions/deployments/start.js";
import { handler as stop } from "../../../functions/deployments/stop.js";
import { handler as unharden } from "../../../functions/deployments/unharden.js";
import { handler as update } from "../../../functions/deployments/update.js";
import { handler as workers } from "../../../functions/deployments/workers.js";
import { NO_BUILD_RUNTIME } from "../../../shared/services/workflows/deployments.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aDeployment, seedRegistration, seedRun, seedWorker } from "../../support/workflow-builders.js";

const dynamo = mockDynamo();
const caller = aCaller();
const admin = aCaller({ workspace: caller.workspace, organization: caller.organization, roles: ["workspace_admin"] });
const ws = caller.workspace;

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
});

const at = (name: string, tail = "") => `/v1/workflows/deployments/${name}${tail}`;
const named = (name: string) => ({ name });
const verb = (path: string, pathParameters: Record<string, string>, query: Record<string, string> = {}, who = caller) =>
  anEvent({ method: "POST", path, pathParameters, query, caller: who });
const aCreate = (body: Record<string, unknown>) => aJsonEvent(body, { path: "/v1/workflows/deployments", caller });

describe("GET /v1/workflows/deployments", () => {
  it("lists active deployments by default with worker counts, workspace_id and next_cursor", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "live", createdAt: "2026-01-01T00:00:00.000Z" }));
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "idle", createdAt: "2026-01-02T00:00:00.000Z" }));
    await seedWorker(ws, "live", 1_000);
    await seedWorker(ws, "live", 120_000);
    await seedWorker(ws, "idle", 120_000);

    const active = await invoke(list, anEvent({ path: "/v1/workflows/deployments", caller }));
    const all = await invoke(list, anEvent({ path: "/v1/workflows/deployments", query: { active_only: "false", limit: "1" }, caller }));
    const next = await invoke(list, anEvent({ path: "/v1/workflows/deployments", query: { active_only: "false", limit: "1", cursor: all.json.next_cursor }, caller }));

    expect(active.statusCode).toBe(200);
    expect(active.json).toMatchObject({ deployments: [{ name: "live", is_active: true, worker_count: 2, active_worker_count: 1, locations: ["local"], managed: null, is_hardened: false }], next_cursor: null, workspace_id: ws });
    expect(all.json.deployments.map((d: { name: string }) => d.name)).toEqual(["idle"]);
    expect(next.json.deployments.map((d: { name: string }) => d.name)).toEqual(["live"]);
    expect(next.json.next_cursor).toBeNull();
  });

  it("filters by workflow_name, search and is_hardened, and refuses a foreign cursor with 422 WF_1001", async () => {
    await seedRegistration(ws, { workflow: { name: "alpha" }, registration: { deploymentName: "pool-a" } });
    await seedRegistration(ws, { workflow: { name: "beta" }, registration: { deploymentName: "pool-b" } });
    await workflowRegistry.updateDeployment(ws, "pool-b", { principals: ["k1"] });
    const q = (query: Record<string, string>) => invoke(list, anEvent({ path: "/v1/workflows/deployments", query: { active_only: "false", ...query }, caller }));

    expect((await q({ workflow_name: "alpha" })).json.deployments.map((d: { name: string }) => d.name)).toEqual(["pool-a"]);
    expect((await q({ search: "B" })).json.deployments.map((d: { name: string }) => d.name)).toEqual(["pool-b"]);
    expect((await q({ is_hardened: "true" })).json.deployments.map((d: { name: string }) => d.name)).toEqual(["pool-b"]);
    const forged = await q({ cursor: "garbage" });
    expect(forged.statusCode).toBe(422);
    expect(forged.json.code).toBe("WF_1001");
  });
});

describe("GET /v1/workflows/deployments/{name}", () => {
  it("answers the detail with its workers and liveness, and 404 WF_1100 for an unknown name", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "pool" }));
    await seedWorker(ws, "pool", 1_000, ["alpha"]);
    await seedWorker(ws, "pool", 120_000);

    const found = await invoke(get, anEvent({ path: at("pool"), pathParameters: named("pool"), caller }));
    const filtered = await invoke(get, anEvent({ path: at("pool"), pathParameters: named("pool"), query: { workflow_name: "alpha" }, caller }));
    const missing = await invoke(get, anEvent({ path: at("nope"), pathParameters: named("nope"), caller }));

    expect(found.statusCode).toBe(200);
    expect(found.json).toMatchObject({ name: "pool", is_active: true, worker_count: 2, active_worker_count: 1, owner: null, managed: null });
    expect(found.json.workers).toHaveLength(2);
    expect(found.json.workers.filter((w: { is_active: boolean }) => w.is_active)).toHaveLength(1);
    expect(filtered.json.workers).toHaveLength(1);
    expect(missing.statusCode).toBe(404);
    expect(missing.json.code).toBe("WF_1100");
  });
});

describe("GET /v1/workflows/deployments/{name}/workers", () => {
  it("pages the workers by name and filters by worker_status", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "pool" }));
    for (const ago of [0, 0, 120_000]) await seedWorker(ws, "pool", ago);
    const q = (query: Record<string, string>) => invoke(workers, anEvent({ path: at("pool", "/workers"), pathParameters: named("pool"), query, caller }));

    const first = await q({ limit: "2" });
    const second = await q({ limit: "2", cursor: first.json.next_cursor });

    expect(first.json.workers).toHaveLength(2);
    expect(second.json).toMatchObject({ next_cursor: null });
    expect(second.json.workers).toHaveLength(1);
    expect((await q({ worker_status: "inactive" })).json.workers).toHaveLength(1);
    expect((await invoke(workers, anEvent({ path: at("x", "/workers"), pathParameters: named("x"), caller }))).statusCode).toBe(404);
  });
});

describe("POST /v1/workflows/deployments", () => {
  it("stores a managed record, Pending with no build runtime, and answers 202; repo_url is taken for github_url; 409 on a taken name", async () => {
    const created = await invoke(create, aCreate({ name: "managed", spec: { repo_url: "https://github.com/acme/worker" }, resources: { replicas: 2 }, hardened: true }));
    const again = await invoke(create, aCreate({ name: "managed", spec: { github_url: "https://github.com/acme/worker" } }));
    const noUrl = await invoke(create, aCreate({ name: "other", spec: {} }));

    expect(created.statusCode).toBe(202);
    expect(created.json).toMatchObject({
      name: "managed",
      spec: { github_url: "https://github.com/acme/worker", revision: "main", entrypoint: "worker:main", type: "workflows_worker" },
      resources: { replicas: 2, cpu_request: null },
      status: { phase: "Pending", message: NO_BUILD_RUNTIME, available_replicas: 0 },
      stopped: false,
      is_hardened: true,
      created_by: caller.principal,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json.code).toBe("WF_1102");
    expect(noUrl.statusCode).toBe(422);
    const detail = await invoke(get, anEvent({ path: at("managed"), pathParameters: named("managed"), caller }));
    expect(detail.json).toMatchObject({ owner: caller.principal, locations: ["managed"], is_hardened: true, managed: { status: { phase: "Pending" } } });
  });
});

describe("PATCH /v1/workflows/deployments/{name}", () => {
  it("changes only the supplied fields and answers 202; 404 for an unknown name", async () => {
    await invoke(create, aCreate({ name: "m", spec: { github_url: "https://github.com/acme/w", revision: "v1" }, resources: { replicas: 1 } }));

    const patched = await invoke(update, aJsonEvent({ resources: { cpu_limit: "2" } }, { method: "PATCH", path: at("m"), pathParameters: named("m"), caller }));
    const missing = await invoke(update, aJsonEvent({ resources: { replicas: 1 } }, { method: "PATCH", path: at("x"), pathParameters: named("x"), caller }));

    expect(patched.statusCode).toBe(202);
    expect(patched.json).toMatchObject({ spec: { github_url: "https://github.com/acme/w", revision: "v1" }, resources: { replicas: 1, cpu_limit: "2" } });
    expect(missing.statusCode).toBe(404);
  });
});

describe("POST /v1/workflows/deployments/{name}/stop", () => {
  it("stops the pool (202, stopped, phase Stopped)", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "pool" }));
    const stopped = await invoke(stop, verb(at("pool", "/stop"), named("pool")));
    expect(stopped.statusCode).toBe(202);
    expect(stopped.json).toMatchObject({ name: "pool", stopped: true, status: { phase: "Stopped" }, rollout_status: "Stopped", spec: { github_url: "" } });
    expect((await workflowRegistry.getDeployment(ws, "pool"))!.stopped).toBe(true);
    expect((await invoke(stop, verb(at("x", "/stop"), named("x")))).statusCode).toBe(404);
  });
});

describe("POST /v1/workflows/deployments/{name}/start", () => {
  it("starts a stopped pool (202, not stopped)", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "pool", stopped: true }));
    const started = await invoke(start, verb(at("pool", "/start"), named("pool")));
    expect(started.statusCode).toBe(202);
    expect(started.json).toMatchObject({ stopped: false, rollout_status: "Running" });
    expect((await workflowRegistry.getDeployment(ws, "pool"))!.stopped).toBe(false);
  });
});

describe("POST /v1/workflows/deployments/{name}/restart", () => {
  it("flags every worker of the pool for restart and records restarted_at", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "pool" }));
    await seedWorker(ws, "pool");
    const restarted = await invoke(restart, verb(at("pool", "/restart"), named("pool")));
    expect(restarted.statusCode).toBe(202);
    expect(restarted.json.spec.restarted_at).toEqual(expect.any(String));
    const [worker] = await workflowRegistry.listWorkers(ws, "pool");
    expect(worker!.restartRequested).toBe(true);
  });
});

describe("DELETE /v1/workflows/deployments/{name}", () => {
  it("refuses with 409 while an execution of it runs, deletes with force=true, and answers 202", async () => {
    const seeded = await seedRegistration(ws, { registration: { deploymentName: "busy" } });
    await seedRun(ws, { status: "RUNNING" }, seeded);
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "idle" }));
    const del = (name: string, query: Record<string, string> = {}) => invoke(remove, anEvent({ method: "DELETE", path: at(name), pathParameters: named(name), query, caller }));

    const refused = await del("busy");
    const forced = await del("busy", { force: "true" });
    const plain = await del("idle");

    expect(refused.statusCode).toBe(409);
    expect(refused.json.code).toBe("WF_1102");
    expect(forced.statusCode).toBe(202);
    expect(forced.json).toMatchObject({ name: "busy", rollout_status: "Deleted" });
    expect(plain.statusCode).toBe(202);
    expect(await workflowRegistry.getDeployment(ws, "busy")).toBeUndefined();
    expect((await del("idle")).statusCode).toBe(404);
  });
});

describe("POST /v1/workflows/deployments/{deployment_id}/unharden", () => {
  it("clears the principals for a workspace admin; 403 for a member; 404 for an unknown id", async () => {
    const d = await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "pool", principals: ["k1"] }));
    const path = at(d.id, "/unharden");

    const member = await invoke(unharden, verb(path, { deployment_id: d.id }));
    const done = await invoke(unharden, verb(path, { deployment_id: d.id }, {}, admin));
    const unknown = await invoke(unharden, verb(at("00000000-0000-4000-8000-000000000000", "/unharden"), { deployment_id: "00000000-0000-4000-8000-000000000000" }, {}, admin));

    expect(member.statusCode).toBe(403);
    expect(done.statusCode).toBe(200);
    expect(done.json).toMatchObject({ id: d.id, name: "pool", is_hardened: false });
    expect((await workflowRegistry.getDeployment(ws, "pool"))!.principals).toEqual([]);
    // Opened on purpose: no register adopts it again (decision 0042).
    expect((await workflowRegistry.getDeployment(ws, "pool"))!.openedAt).toEqual(expect.any(String));
    expect(unknown.statusCode).toBe(404);
  });
});

describe("POST /v1/workflows/deployments hardened by default (decision 0042)", () => {
  const spec = { github_url: "https://github.com/acme/worker" };

  it("makes the creator the first authorized principal when `hardened` is absent", async () => {
    const created = await invoke(create, aCreate({ name: "by-default", spec }));
    expect(created.statusCode).toBe(202);
    expect(created.json.is_hardened).toBe(true);
    expect(await workflowRegistry.getDeployment(ws, "by-default")).toMatchObject({ principals: [caller.keyId] });
  });

  it("leaves the set empty, not opened, with `hardened: false` (the SDK's default): the first registering worker takes it (test/handlers/workers/ownership.test.ts)", async () => {
    const created = await invoke(create, aCreate({ name: "sdk-default", spec, hardened: false }));
    expect(created.json.is_hardened).toBe(false);
    const stored = await workflowRegistry.getDeployment(ws, "sdk-default");
    expect(stored).toMatchObject({ principals: [] });
    expect(stored!.openedAt).toBeUndefined();
  });
});

describe("POST /v1/workflows/deployments/{name}/principals", () => {
  it("adds and removes authorized principals for a workspace admin (hardened while the set is non-empty); 403 for a member", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "pool" }));
    const call = (body: unknown, who = admin) => invoke(principals, aJsonEvent(body, { path: at("pool", "/principals"), pathParameters: named("pool"), caller: who }));

    const added = await call({ add: ["k2", "k1"] });
    const removed = await call({ remove: ["k1", "k2"] });
    const member = await call({ add: ["k3"] }, caller);

    expect(added.statusCode).toBe(200);
    expect(added.json).toMatchObject({ name: "pool", is_hardened: true, authorized_principals: ["k1", "k2"] });
    expect(removed.json).toMatchObject({ is_hardened: false, authorized_principals: [] });
    expect(member.statusCode).toBe(403);
  });

  it("makes register refuse other principals of a hardened deployment with 403, before checking the programs", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: ws, name: "pool", principals: ["someone-else"] }));
    const refused = await invoke(register, aJsonEvent({ deployment_name: "pool", definitions: [{ name: "x", definition: { input_schema: { type: "object" } }, program: { StartAt: "Nowhere", States: {} } }] }, { path: "/v1/workflows/register", caller }));
    expect(refused.statusCode).toBe(403);
  });
});
