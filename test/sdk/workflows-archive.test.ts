/**
 * Archiving workflows and reading one registration through the official SDK, unmodified (issue 29): every answer
 * must parse with its zod schemas, and `PUT /v1/workflows/archive` must reach the bulk route.
 */
import { randomUUID } from "node:crypto";
import { Mistral } from "@mistralai/mistralai";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { rejectionOf, sdkClient } from "../support/sdk.js";
import { seedRegistration, seedWorker } from "../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;

beforeAll(() => {
  client = sdkClient(api, tenant.key);
});

const seed = (name: string, archived = false) => seedRegistration(tenant.caller.workspace, { organization: tenant.caller.organization, workflow: { name, archived } });

describe("PUT /v1/workflows/{workflow_identifier}/archive and …/unarchive through the SDK", () => {
  it("archiveWorkflow and unarchiveWorkflow answer the workflow; an archived one refuses executeWorkflow with 409", async () => {
    const { workflow } = await seed("sdk-archived");

    const archived = await client.workflows.archiveWorkflow({ workflowIdentifier: "sdk-archived" });
    const refused = (await rejectionOf(client.workflows.executeWorkflow({ workflowIdentifier: "sdk-archived", workflowExecutionRequest: { input: {} } }))) as { statusCode?: number; body?: string };
    const listed = await client.workflows.getWorkflows({ archived: false, limit: 100 });
    const unarchived = await client.workflows.unarchiveWorkflow({ workflowIdentifier: workflow.id });

    expect(archived.workflow).toMatchObject({ id: workflow.id, name: "sdk-archived", archived: true, type: "code", workspaceId: tenant.caller.workspace });
    expect(refused?.statusCode).toBe(409);
    expect(JSON.parse(refused!.body!)).toMatchObject({ code: "WORKFLOW_ARCHIVED" });
    expect(listed.result.workflows.map((w) => w.name)).not.toContain("sdk-archived");
    expect(unarchived.workflow).toMatchObject({ id: workflow.id, archived: false });
  });
});

describe("PUT /v1/workflows/archive and /v1/workflows/unarchive through the SDK", () => {
  it("bulkArchiveWorkflows and bulkUnarchiveWorkflows answer each id: done, or errored with why", async () => {
    const a = await seed("sdk-bulk-a");
    const b = await seed("sdk-bulk-b", true);
    const unknown = randomUUID();

    const archived = await client.workflows.bulkArchiveWorkflows({ workflowIds: [a.workflow.id, b.workflow.id, unknown] });
    const unarchived = await client.workflows.bulkUnarchiveWorkflows({ workflowIds: [a.workflow.id, b.workflow.id] });

    expect(archived.archived.map((w) => [w.id, w.archived])).toEqual([
      [a.workflow.id, true],
      [b.workflow.id, true],
    ]);
    expect(archived.errored).toEqual([{ workflowId: unknown, workflow: null, message: `Workflow '${unknown}' not found` }]);
    expect(unarchived.unarchived.map((w) => w.archived)).toEqual([false, false]);
    expect(unarchived.errored).toEqual([]);
  });
});

describe("GET /v1/workflows/registrations/{workflow_registration_id} through the SDK", () => {
  it("getWorkflowRegistration answers the registration under both names, with the workflow when asked", async () => {
    const { workflow, registration } = await seedRegistration(tenant.caller.workspace, { organization: tenant.caller.organization, registration: { deploymentName: "sdk-pool" } });
    await seedWorker(tenant.caller.workspace, "sdk-pool");

    const got = await client.workflows.getWorkflowRegistration({ workflowRegistrationId: registration.id, withWorkflow: true });
    const missing = (await rejectionOf(client.workflows.getWorkflowRegistration({ workflowRegistrationId: randomUUID() }))) as { statusCode?: number };

    expect(got.workflowRegistration).toMatchObject({ id: registration.id, workflowId: workflow.id, deploymentName: "sdk-pool", active: true, workflow: { id: workflow.id, name: workflow.name } });
    expect(got.workflowVersion).toEqual(got.workflowRegistration);
    expect(missing?.statusCode).toBe(404);
  });
});
