import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as list } from "../../../functions/workflows/list.js";
import { handler as listRegistrations } from "../../../functions/workflows/list-registrations.js";
import { handler as metrics } from "../../../functions/workflows/metrics.js";
import { handler as retrieve } from "../../../functions/workflows/retrieve.js";
import { handler as update } from "../../../functions/workflows/update.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aDefinition, seedRegistration, seedRun, seedWorker } from "../../support/workflow-builders.js";

const dynamo = mockDynamo();
const caller = aCaller();
const NOW = freezeDate("2026-02-01T00:00:00.000Z");

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
});

const get = (path: string, query: Record<string, string | string[]> = {}, pathParameters?: Record<string, string>) => anEvent({ method: "GET", path, query, pathParameters, caller });

describe("GET /v1/workflows", () => {
  it("lists the workspace's workflows by creation with their basic definition", async () => {
    const a = await seedRegistration(caller.workspace, { workflow: { name: "alpha", createdAt: "2026-01-01T00:00:00.000Z", tags: ["x"] } });
    const b = await seedRegistration(caller.workspace, { workflow: { name: "beta", createdAt: "2026-01-02T00:00:00.000Z" } });

    const response = await invoke(list, get("/v1/workflows"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      workflows: [
        { id: a.workflow.id, name: "alpha", display_name: "ALPHA", description: null, metadata: { shared_namespace: null }, archived: false, tags: ["x"] },
        { id: b.workflow.id, name: "beta", display_name: "BETA", description: null, metadata: { shared_namespace: null }, archived: false, tags: [] },
      ],
      next_cursor: null,
    });
  });

  it("pages with an opaque cursor and refuses one it did not issue with a 422 in the workflow envelope", async () => {
    for (const day of [1, 2, 3]) await seedRegistration(caller.workspace, { workflow: { name: `w${day}`, createdAt: `2026-01-0${day}T00:00:00.000Z` } });

    const first = await invoke(list, get("/v1/workflows", { limit: "2" }));
    const second = await invoke(list, get("/v1/workflows", { limit: "2", cursor: first.json.next_cursor }));
    const forged = await invoke(list, get("/v1/workflows", { cursor: Buffer.from('{"s":"created"}').toString("base64url") }));

    expect(first.json.workflows.map((w: { name: string }) => w.name)).toEqual(["w1", "w2"]);
    expect(second.json.workflows.map((w: { name: string }) => w.name)).toEqual(["w3"]);
    expect(second.json.next_cursor).toBeNull();
    expect(forged.statusCode).toBe(422);
    expect(forged.json).toEqual({ detail: [{ loc: ["query", "cursor"], msg: "Invalid page token", type: "value_error" }], code: "WF_1001" });
  });

  it("keeps only workflows of an active deployment with deployment_status=active", async () => {
    const live = await seedRegistration(caller.workspace, { workflow: { name: "live" }, registration: { deploymentName: "pool-a" } });
    await seedRegistration(caller.workspace, { workflow: { name: "idle" }, registration: { deploymentName: "pool-b" } });
    await seedWorker(caller.workspace, "pool-a", 1_000);
    await seedWorker(caller.workspace, "pool-b", 60_000);

    const active = await invoke(list, get("/v1/workflows", { deployment_status: "active" }));
    const inactive = await invoke(list, get("/v1/workflows", { deployment_status: "inactive" }));

    expect(active.json.workflows.map((w: { id: string }) => w.id)).toEqual([live.workflow.id]);
    expect(inactive.json.workflows.map((w: { name: string }) => w.name)).toEqual(["idle"]);
  });

  it("filters by archived, tags, search and deployment_name", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "report-daily", tags: ["ops", "daily"] }, registration: { deploymentName: "ops" } });
    await seedRegistration(caller.workspace, { workflow: { name: "report-old", archived: true, tags: ["ops"] } });

    const names = async (query: Record<string, string | string[]>) => (await invoke(list, get("/v1/workflows", query))).json.workflows.map((w: { name: string }) => w.name);

    expect(await names({ archived: "true" })).toEqual(["report-old"]);
    expect(await names({ tags: ["ops", "daily"] })).toEqual(["report-daily"]);
    expect(await names({ search: "OLD" })).toEqual([]);
    expect(await names({ search: "OLD", archived: "true" })).toEqual(["report-old"]);
    expect(await names({ deployment_name: "ops" })).toEqual(["report-daily"]);
  });
});

describe("GET /v1/workflows/registrations", () => {
  it("lists registrations newest first, under both names, with the workflow when asked", async () => {
    const old = await seedRegistration(caller.workspace, { registration: { createdAt: "2026-01-01T00:00:00.000Z" } });
    const recent = await seedRegistration(caller.workspace, { registration: { createdAt: "2026-01-05T00:00:00.000Z", definition: aDefinition({ execution_timeout: 30 }) } });

    const response = await invoke(listRegistrations, get("/v1/workflows/registrations", { with_workflow: "true" }));

    expect(response.statusCode).toBe(200);
    expect(response.json.workflow_registrations.map((r: { id: string }) => r.id)).toEqual([recent.registration.id, old.registration.id]);
    expect(response.json.workflow_versions).toEqual(response.json.workflow_registrations);
    expect(response.json.workflow_registrations[0]).toMatchObject({
      workflow_id: recent.workflow.id,
      deployment_name: "default",
      task_queue: "default",
      deployment_id: null,
      compatible_with_chat_assistant: false,
      definition: { input_schema: recent.registration.definition.input_schema, execution_timeout: 30 },
      workflow: { id: recent.workflow.id, type: "code", workspace_id: caller.workspace },
    });
    // The SDK takes execution_timeout as a number when present: null is left out.
    expect(response.json.workflow_registrations[1].definition).not.toHaveProperty("execution_timeout");
    expect(response.json.workflow_registrations[1].definition).not.toHaveProperty("program");
  });

  it("filters by workflow_id and active_only, and pages", async () => {
    const a = await seedRegistration(caller.workspace, { registration: { deploymentName: "live", createdAt: "2026-01-03T00:00:00.000Z" } });
    await seedRegistration(caller.workspace, { registration: { createdAt: "2026-01-02T00:00:00.000Z" } });
    await seedRegistration(caller.workspace, { registration: { createdAt: "2026-01-01T00:00:00.000Z" } });
    await seedWorker(caller.workspace, "live");

    const byWorkflow = await invoke(listRegistrations, get("/v1/workflows/registrations", { workflow_id: a.workflow.id }));
    const activeOnly = await invoke(listRegistrations, get("/v1/workflows/registrations", { active_only: "true" }));
    const first = await invoke(listRegistrations, get("/v1/workflows/registrations", { limit: "2" }));
    const second = await invoke(listRegistrations, get("/v1/workflows/registrations", { limit: "2", cursor: first.json.next_cursor }));

    expect(byWorkflow.json.workflow_registrations.map((r: { id: string }) => r.id)).toEqual([a.registration.id]);
    expect(activeOnly.json.workflow_registrations.map((r: { id: string }) => r.id)).toEqual([a.registration.id]);
    expect(first.json.workflow_registrations).toHaveLength(2);
    expect(second.json.workflow_registrations).toHaveLength(1);
    expect(second.json.next_cursor).toBeNull();
  });
});

describe("GET /v1/workflows/{workflow_identifier}", () => {
  it("finds a workflow by id or by name, active while a worker of its deployment beats", async () => {
    const { workflow } = await seedRegistration(caller.workspace, { organization: caller.organization, workflow: { name: "greeter" } });
    await seedWorker(caller.workspace, "default", 5_000);

    const byId = await invoke(retrieve, get(`/v1/workflows/${workflow.id}`, {}, { workflow_identifier: workflow.id }));
    const byName = await invoke(retrieve, get("/v1/workflows/greeter", {}, { workflow_identifier: "greeter" }));

    expect(byId.statusCode).toBe(200);
    expect(byId.json).toEqual({
      workflow: {
        id: workflow.id,
        name: "greeter",
        display_name: "GREETER",
        type: "code",
        description: null,
        customer_id: caller.organization,
        workspace_id: caller.workspace,
        shared_namespace: null,
        available_in_chat_assistant: false,
        is_technical: false,
        archived: false,
        tags: [],
        active: true,
      },
    });
    expect(byName.json).toEqual(byId.json);
  });

  it("is inactive when the last heartbeat is older than the liveness window", async () => {
    const { workflow } = await seedRegistration(caller.workspace);
    await seedWorker(caller.workspace, "default", 51_000);

    const response = await invoke(retrieve, get(`/v1/workflows/${workflow.id}`, {}, { workflow_identifier: workflow.id }));

    expect(response.json.workflow.active).toBe(false);
  });

  it("answers an unknown workflow with 404 WF_1100", async () => {
    const response = await invoke(retrieve, get("/v1/workflows/nope", {}, { workflow_identifier: "nope" }));

    expect(response.statusCode).toBe(404);
    expect(response.json).toEqual({ detail: "Workflow 'nope' not found", code: "WF_1100" });
  });
});

describe("PUT /v1/workflows/{workflow_identifier}", () => {
  const put = (id: string, body: unknown) => aJsonEvent(body, { method: "PUT", path: `/v1/workflows/${id}`, pathParameters: { workflow_identifier: id }, caller });

  it("changes the given fields and leaves the others", async () => {
    const { workflow } = await seedRegistration(caller.workspace, { workflow: { description: "keep", tags: ["a"] } });

    const response = await invoke(update, put(workflow.name, { display_name: "Nice name", available_in_chat_assistant: true }));

    expect(response.statusCode).toBe(200);
    expect(response.json.workflow).toMatchObject({ id: workflow.id, display_name: "Nice name", description: "keep", tags: ["a"], available_in_chat_assistant: true, type: "code" });
    expect(response.json.workflow).not.toHaveProperty("active");
  });

  it("refuses a display name over 128 characters with the list-form 422", async () => {
    const { workflow } = await seedRegistration(caller.workspace);

    const response = await invoke(update, put(workflow.id, { display_name: "x".repeat(129) }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["body", "display_name"]);
  });

  it("answers 404 for another workspace's workflow", async () => {
    const { workflow } = await seedRegistration(randomUUID());

    expect((await invoke(update, put(workflow.id, { tags: [] }))).statusCode).toBe(404);
  });
});

describe("GET /v1/workflows/{workflow_name}/metrics", () => {
  it("counts the runs that started in the window: successes, errors, latency of closed runs", async () => {
    const seeded = await seedRegistration(caller.workspace, { workflow: { name: "measured" } });
    await seedRun(caller.workspace, { status: "COMPLETED", startTime: "2026-01-10T00:00:00.000Z", endTime: "2026-01-10T00:00:02.000Z" }, seeded);
    await seedRun(caller.workspace, { status: "FAILED", startTime: "2026-01-11T00:00:00.000Z", endTime: "2026-01-11T00:00:04.000Z" }, seeded);
    await seedRun(caller.workspace, { status: "TERMINATED", startTime: "2026-01-12T00:00:00.000Z", endTime: "2026-01-12T00:00:06.000Z" }, seeded);
    await seedRun(caller.workspace, { status: "RUNNING", startTime: "2026-01-13T00:00:00.000Z" }, seeded);
    await seedRun(caller.workspace, { status: "COMPLETED", startTime: "2025-12-01T00:00:00.000Z" }, seeded);

    const response = await invoke(metrics, get("/v1/workflows/measured/metrics", { start_time: "2026-01-01T00:00:00Z" }, { workflow_name: "measured" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      execution_count: { value: 4 },
      success_count: { value: 1 },
      error_count: { value: 2 },
      average_latency_ms: { value: 4000 },
      latency_over_time: { value: [[Date.parse("2026-01-10T00:00:02Z") / 1000, 2000], [Date.parse("2026-01-11T00:00:04Z") / 1000, 4000], [Date.parse("2026-01-12T00:00:06Z") / 1000, 6000]] },
      retry_rate: { value: -1 },
    });
    expect(NOW).toBeTruthy();
  });

  it("answers 404 for a workflow the workspace does not have", async () => {
    const response = await invoke(metrics, get("/v1/workflows/ghost/metrics", {}, { workflow_name: "ghost" }));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("WF_1100");
  });
});
