/**
 * Archiving workflows and reading one registration (issue 29; decision 63): the archive routes set the flag and
 * record an audit event, the bulk routes answer each id on its own, an archived workflow starts nothing new.
 */
import { randomUUID } from "node:crypto";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as archive } from "../../../functions/workflows/archive.js";
import { handler as bulkArchive } from "../../../functions/workflows/bulk-archive.js";
import { handler as bulkUnarchive } from "../../../functions/workflows/bulk-unarchive.js";
import { handler as execute } from "../../../functions/workflows/execute.js";
import { handler as executeRegistration } from "../../../functions/workflows/execute-registration.js";
import { handler as getRegistration } from "../../../functions/workflows/get-registration.js";
import { handler as list } from "../../../functions/workflows/list.js";
import { handler as unarchive } from "../../../functions/workflows/unarchive.js";
import { handler as update } from "../../../functions/workflows/update.js";
import { routes } from "../../../functions/routes.js";
import { routeMatcher } from "../../../infra/local/route-matcher.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aDefinition, seedRegistration, seedWorker } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ startRun: vi.fn(), stopRun: vi.fn(), describeRun: vi.fn(), completeTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const caller = aCaller();
const NOW = freezeDate("2026-02-01T00:00:00.000Z");

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
  machines.startRun.mockReset().mockResolvedValue("arn:aws:states:us-east-1:000000000000:execution:wf:run");
});

const put = (path: string, pathParameters?: Record<string, string>) => anEvent({ method: "PUT", path, pathParameters, caller });
const putJson = (path: string, body: unknown) => aJsonEvent(body, { method: "PUT", path, caller });
const auditItems = () =>
  dynamo
    .commandCalls(PutCommand)
    .map((c) => c.args[0].input)
    .filter((input) => input.TableName === process.env.TABLE_AUDIT)
    .map((input) => input.Item!);

describe("PUT /v1/workflows/{workflow_identifier}/archive", () => {
  it("archives by name or id, answers the workflow, and records who did it", async () => {
    const { workflow } = await seedRegistration(caller.workspace, { organization: caller.organization, workflow: { name: "nightly" } });

    const response = await invoke(archive, put("/v1/workflows/nightly/archive", { workflow_identifier: "nightly" }));
    const again = await invoke(archive, put(`/v1/workflows/${workflow.id}/archive`, { workflow_identifier: workflow.id }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ workflow: expect.objectContaining({ id: workflow.id, name: "nightly", type: "code", archived: true }) });
    expect(again.statusCode).toBe(200);
    expect(await workflowRegistry.getWorkflow(caller.workspace, workflow.id)).toMatchObject({ archived: true, updatedAt: NOW });
    // Archiving twice is no error, and is recorded as asked, before equal to after.
    expect(auditItems()).toMatchObject([
      { operation: "workflow.archive", targets: [{ type: "workflow", id: workflow.id }], before: { workflows: [{ id: workflow.id, archived: false }] }, after: { workflows: [{ archived: true }] } },
      { operation: "workflow.archive", before: { workflows: [{ archived: true }] }, after: { workflows: [{ archived: true }] } },
    ]);
  });

  it("answers 404 WF_1100 for an unknown workflow or another workspace's, and records nothing", async () => {
    const theirs = await seedRegistration(randomUUID());

    const unknown = await invoke(archive, put("/v1/workflows/nope/archive", { workflow_identifier: "nope" }));
    const other = await invoke(archive, put(`/v1/workflows/${theirs.workflow.id}/archive`, { workflow_identifier: theirs.workflow.id }));

    expect(unknown.statusCode).toBe(404);
    expect(unknown.json).toEqual({ detail: "Workflow 'nope' not found", code: "WF_1100" });
    expect(other.statusCode).toBe(404);
    expect((await workflowRegistry.getWorkflow(theirs.workflow.workspace, theirs.workflow.id))!.archived).toBe(false);
    expect(auditItems()).toEqual([]);
  });
});

describe("PUT /v1/workflows/{workflow_identifier}/unarchive", () => {
  it("unarchives, answers the workflow and records it", async () => {
    const { workflow } = await seedRegistration(caller.workspace, { workflow: { name: "old", archived: true } });

    const response = await invoke(unarchive, put("/v1/workflows/old/unarchive", { workflow_identifier: "old" }));

    expect(response.statusCode).toBe(200);
    expect(response.json.workflow).toMatchObject({ id: workflow.id, archived: false });
    expect(auditItems()).toMatchObject([{ operation: "workflow.unarchive", before: { workflows: [{ archived: true }] }, after: { workflows: [{ archived: false }] } }]);
  });
});

describe("PUT /v1/workflows/archive", () => {
  it("answers each id: archived (already archived included), errored with why for an unknown one", async () => {
    const a = await seedRegistration(caller.workspace);
    const b = await seedRegistration(caller.workspace, { workflow: { archived: true } });
    const theirs = await seedRegistration(randomUUID());
    const unknown = randomUUID();

    const response = await invoke(bulkArchive, putJson("/v1/workflows/archive", { workflow_ids: [a.workflow.id, b.workflow.id, unknown, theirs.workflow.id, a.workflow.id] }));

    expect(response.statusCode).toBe(200);
    expect(response.json.archived.map((w: { id: string; archived: boolean }) => [w.id, w.archived])).toEqual([
      [a.workflow.id, true],
      [b.workflow.id, true],
    ]);
    expect(response.json.errored).toEqual([
      { workflow_id: unknown, workflow: null, message: `Workflow '${unknown}' not found` },
      { workflow_id: theirs.workflow.id, workflow: null, message: `Workflow '${theirs.workflow.id}' not found` },
    ]);
    expect(await workflowRegistry.getWorkflow(caller.workspace, a.workflow.id)).toMatchObject({ archived: true });
    // One event names every workflow the call archived.
    expect(auditItems()).toMatchObject([{ operation: "workflow.archive", targets: [{ id: a.workflow.id }, { id: b.workflow.id }] }]);
  });

  it("refuses ids that are not UUIDs and more than 100 ids with a 422, writing nothing", async () => {
    const { workflow } = await seedRegistration(caller.workspace, { workflow: { name: "named" } });

    const byName = await invoke(bulkArchive, putJson("/v1/workflows/archive", { workflow_ids: ["named"] }));
    const tooMany = await invoke(bulkArchive, putJson("/v1/workflows/archive", { workflow_ids: Array.from({ length: 101 }, () => randomUUID()) }));
    const missing = await invoke(bulkArchive, putJson("/v1/workflows/archive", {}));

    expect(byName.statusCode).toBe(422);
    expect(byName.json.detail[0].loc).toEqual(["body", "workflow_ids", 0]);
    expect(tooMany.statusCode).toBe(422);
    expect(missing.statusCode).toBe(422);
    expect((await workflowRegistry.getWorkflow(caller.workspace, workflow.id))!.archived).toBe(false);
    expect(auditItems()).toEqual([]);
  });

  it("answers an empty list with empty lists and records nothing", async () => {
    const response = await invoke(bulkArchive, putJson("/v1/workflows/archive", { workflow_ids: [] }));

    expect(response.json).toEqual({ archived: [], errored: [] });
    expect(auditItems()).toEqual([]);
  });
});

describe("PUT /v1/workflows/unarchive", () => {
  it("unarchives each id it knows and names the others in errored", async () => {
    const a = await seedRegistration(caller.workspace, { workflow: { archived: true } });
    const unknown = randomUUID();

    const response = await invoke(bulkUnarchive, putJson("/v1/workflows/unarchive", { workflow_ids: [a.workflow.id, unknown] }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      unarchived: [expect.objectContaining({ id: a.workflow.id, archived: false })],
      errored: [{ workflow_id: unknown, workflow: null, message: `Workflow '${unknown}' not found` }],
    });
    expect(auditItems()).toMatchObject([{ operation: "workflow.unarchive", targets: [{ id: a.workflow.id }] }]);
  });
});

describe("an archived workflow", () => {
  it("starts no execution, by workflow or by pinned registration: 409 WORKFLOW_ARCHIVED, nothing started", async () => {
    const { registration } = await seedRegistration(caller.workspace, { workflow: { name: "frozen", archived: true } });

    const byWorkflow = await invoke(execute, aJsonEvent({ input: { name: "Ada" } }, { path: "/v1/workflows/frozen/execute", pathParameters: { workflow_identifier: "frozen" }, caller }));
    const byRegistration = await invoke(
      executeRegistration,
      aJsonEvent({ input: {} }, { path: `/v1/workflows/registrations/${registration.id}/execute`, pathParameters: { workflow_registration_id: registration.id }, caller }),
    );

    expect(byWorkflow.statusCode).toBe(409);
    expect(byWorkflow.json).toEqual({ detail: expect.stringContaining("Workflow 'frozen' is archived"), code: "WORKFLOW_ARCHIVED" });
    expect(byRegistration.statusCode).toBe(409);
    expect(machines.startRun).not.toHaveBeenCalled();
  });

  it("is left out of the list unless asked for: without `archived` and with archived=false, alone with archived=true", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "kept", createdAt: "2026-01-01T00:00:00.000Z" } });
    await seedRegistration(caller.workspace, { workflow: { name: "shelved", archived: true, createdAt: "2026-01-02T00:00:00.000Z" } });
    const names = async (query: Record<string, string>) => (await invoke(list, anEvent({ path: "/v1/workflows", query, caller }))).json.workflows.map((w: { name: string }) => w.name);

    expect(await names({})).toEqual(["kept"]);
    expect(await names({ archived: "false" })).toEqual(["kept"]);
    expect(await names({ archived: "true" })).toEqual(["shelved"]);
  });

  it("can still be updated by name; PUT /v1/workflows/archive and /unarchive reach the bulk rows, not the update", async () => {
    const { workflow } = await seedRegistration(caller.workspace, { workflow: { name: "renamed", archived: true } });
    const match = routeMatcher(routes);

    const updated = await invoke(update, aJsonEvent({ display_name: "Still here" }, { method: "PUT", path: "/v1/workflows/renamed", pathParameters: { workflow_identifier: "renamed" }, caller }));

    expect(updated.json.workflow).toMatchObject({ id: workflow.id, display_name: "Still here", archived: true });
    // Literal segments outrank `{workflow_identifier}` (decision 32): hence the names refused at registration.
    expect(match("PUT", "/v1/workflows/archive").row?.handler).toBe("workflows/bulk-archive");
    expect(match("PUT", "/v1/workflows/unarchive").row?.handler).toBe("workflows/bulk-unarchive");
    expect(match("PUT", "/v1/workflows/renamed").row?.handler).toBe("workflows/update");
    expect(match("PUT", "/v1/workflows/renamed/archive").row?.handler).toBe("workflows/archive");
  });
});

describe("GET /v1/workflows/registrations/{workflow_registration_id}", () => {
  const get = (id: string, query: Record<string, string> = {}) => anEvent({ path: `/v1/workflows/registrations/${id}`, pathParameters: { workflow_registration_id: id }, query, caller });

  it("answers the registration under both names, active while a worker of its deployment beats, the workflow when asked", async () => {
    const { workflow, registration } = await seedRegistration(caller.workspace, { registration: { deploymentName: "pool", definition: aDefinition({ execution_timeout: 30 }) } });
    await seedWorker(caller.workspace, "pool", 1_000);

    const plain = await invoke(getRegistration, get(registration.id));
    const withWorkflow = await invoke(getRegistration, get(registration.id, { with_workflow: "true" }));

    expect(plain.statusCode).toBe(200);
    expect(plain.json.workflow_registration).toEqual({
      id: registration.id,
      deployment_id: null,
      task_queue: "pool",
      definition: expect.objectContaining({ input_schema: registration.definition.input_schema, execution_timeout: 30 }),
      workflow_id: workflow.id,
      workflow: null,
      deployment_name: "pool",
      compatible_with_chat_assistant: false,
      active: true,
    });
    expect(plain.json.workflow_version).toEqual(plain.json.workflow_registration);
    expect(plain.json.workflow_registration.definition).not.toHaveProperty("program");
    expect(withWorkflow.json.workflow_registration.workflow).toMatchObject({ id: workflow.id, type: "code", workspace_id: caller.workspace });
  });

  it("is inactive without a live worker, 404 WF_1100 for an unknown or another workspace's registration, 422 for a non-UUID", async () => {
    const { registration } = await seedRegistration(caller.workspace);
    const theirs = await seedRegistration(randomUUID());

    expect((await invoke(getRegistration, get(registration.id))).json.workflow_registration.active).toBe(false);
    const unknown = await invoke(getRegistration, get(randomUUID()));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json.code).toBe("WF_1100");
    expect((await invoke(getRegistration, get(theirs.registration.id))).statusCode).toBe(404);
    expect((await invoke(getRegistration, get("not-a-uuid"))).statusCode).toBe(422);
  });
});
