/**
 * Archiving workflows and reading one registration through the local API Gateway stand-in against DynamoDB
 * Local (issue 29; decision 63): the literal `archive`/`unarchive` segments outrank `{workflow_identifier}`, an
 * archived workflow starts nothing new and is left out of the workflow list unless asked for (`archived=true`).
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { seedPublished, seedRegistration, seedWorker, workflowsClient } from "../../support/workflow-builders.js";
import { workersClient } from "../../support/workers-client.js";
import { EXAMPLE_ACTIVITIES, exampleProgram } from "../../support/workflow-programs.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const ws = () => tenant.caller.workspace;
const GREETER = { StartAt: "Greet", States: { Greet: { Type: "Pass", Result: { hello: true }, End: true } } };

const archive = (id: string) => http.request("PUT", `/v1/workflows/${encodeURIComponent(id)}/archive`);
const unarchive = (id: string) => http.request("PUT", `/v1/workflows/${encodeURIComponent(id)}/unarchive`);
const bulk = (verb: "archive" | "unarchive", body: unknown) => http.request("PUT", `/v1/workflows/${verb}`, { json: body });
const names = async (query: Record<string, string | boolean> = {}) => (await http.list({ limit: 1000, ...query })).body.workflows.map((w: { name: string }) => w.name);

describe("PUT /v1/workflows/{workflow_identifier}/archive", () => {
  it("archives by name: executions are refused with 409 WORKFLOW_ARCHIVED, lists leave it out unless asked for", async () => {
    await seedPublished(ws(), GREETER, { organization: tenant.caller.organization, workflow: { name: "shelf" } });

    const archived = await archive("shelf");
    const refused = await http.execute("shelf", { input: {} });

    expect(archived.status).toBe(200);
    expect(archived.body.workflow).toMatchObject({ name: "shelf", archived: true, type: "code", workspace_id: ws() });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: expect.stringContaining("is archived"), code: "WORKFLOW_ARCHIVED" });
    expect(await names()).not.toContain("shelf");
    expect(await names({ archived: false })).not.toContain("shelf");
    expect(await names({ archived: true })).toEqual(["shelf"]);
    expect((await http.get("shelf")).body.workflow.archived).toBe(true);
  });

  it("answers 404 WF_1100 for an unknown workflow and for another workspace's", async () => {
    const other = await newTenant();
    const theirs = await seedRegistration(other.caller.workspace);

    expect((await archive("nope")).body).toEqual({ detail: "Workflow 'nope' not found", code: "WF_1100" });
    expect((await archive(theirs.workflow.id)).status).toBe(404);
  });
});

describe("PUT /v1/workflows/{workflow_identifier}/unarchive", () => {
  it("unarchives by id: executions start again", async () => {
    const { workflow } = await seedPublished(ws(), GREETER, { workflow: { name: "back", archived: true } });

    const unarchived = await unarchive(workflow.id);
    const started = await http.execute("back", { input: {}, wait_for_result: true });

    expect(unarchived.status).toBe(200);
    expect(unarchived.body.workflow).toMatchObject({ id: workflow.id, archived: false });
    expect(started.status).toBe(200);
    expect(started.body.result).toEqual({ hello: true });
  });
});

describe("PUT /v1/workflows/archive", () => {
  it("reaches the bulk route, not the update of a workflow named 'archive': each id archived or errored", async () => {
    const a = await seedRegistration(ws(), { workflow: { name: "bulk-a" } });
    const b = await seedRegistration(ws(), { workflow: { name: "bulk-b", archived: true } });
    const unknown = randomUUID();

    const answer = await bulk("archive", { workflow_ids: [a.workflow.id, b.workflow.id, unknown] });
    const asUpdate = await bulk("archive", { display_name: "not an update" });

    expect(answer.status).toBe(200);
    expect(answer.body.archived.map((w: { name: string; archived: boolean }) => [w.name, w.archived])).toEqual([
      ["bulk-a", true],
      ["bulk-b", true],
    ]);
    expect(answer.body.errored).toEqual([{ workflow_id: unknown, workflow: null, message: `Workflow '${unknown}' not found` }]);
    expect(asUpdate.status).toBe(422);
    expect(asUpdate.body.detail[0].loc).toEqual(["body", "workflow_ids"]);
  });
});

describe("PUT /v1/workflows/unarchive", () => {
  it("unarchives each id it knows", async () => {
    const a = await seedRegistration(ws(), { workflow: { name: "bulk-u", archived: true } });

    const answer = await bulk("unarchive", { workflow_ids: [a.workflow.id] });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ unarchived: [expect.objectContaining({ id: a.workflow.id, archived: false })], errored: [] });
    // GET on the literal resource is not the workflow named "unarchive": API Gateway's tree answers 405.
    expect((await http.request("GET", "/v1/workflows/unarchive")).status).toBe(405);
  });
});

describe("POST /v1/workflows/register with the names `archive` and `unarchive`", () => {
  it("refuses them with 422 naming definitions[i].name", async () => {
    const worker = workersClient(api, tenant, { deployment: `reserved-${randomUUID().slice(0, 8)}`, name: "w1" });

    const reply = await worker.register({ definitions: [{ name: "unarchive", definition: { input_schema: { type: "object" } }, program: exampleProgram(), activities: EXAMPLE_ACTIVITIES }] });

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ["body", "definitions", 0, "name"], msg: expect.stringContaining("'unarchive' cannot name a workflow") })]);
  });
});

describe("GET /v1/workflows/registrations/{workflow_registration_id}", () => {
  it("answers the registration with its liveness and workflow, and 404 WF_1100 for another workspace's", async () => {
    const { workflow, registration } = await seedRegistration(ws(), { registration: { deploymentName: "live-pool" } });
    await seedWorker(ws(), "live-pool");
    const other = await newTenant();
    const theirs = await seedRegistration(other.caller.workspace);

    const got = await http.request("GET", `/v1/workflows/registrations/${registration.id}`, { query: { with_workflow: true } });

    expect(got.status).toBe(200);
    expect(got.body.workflow_registration).toMatchObject({ id: registration.id, workflow_id: workflow.id, deployment_name: "live-pool", active: true, workflow: { id: workflow.id } });
    expect(got.body.workflow_version).toEqual(got.body.workflow_registration);
    expect((await http.request("GET", `/v1/workflows/registrations/${theirs.registration.id}`)).body).toMatchObject({ code: "WF_1100" });
  });
});
