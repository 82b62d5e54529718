/**
 * Workflow deployments through the official SDK: every answer (the 202s' ManagedDeploymentResponse, the
 * detail, the lists) must parse with its zod schemas. Unharden is not in the SDK (test/integration).
 */
import { Mistral } from "@mistralai/mistralai";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { sdkClient } from "../support/sdk.js";
import { seedRegistration, seedWorker } from "../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;

beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  await seedRegistration(tenant.caller.workspace, { organization: tenant.caller.organization, workflow: { name: "sdk-dep-flow" }, registration: { deploymentName: "sdk-pool" } });
  await seedWorker(tenant.caller.workspace, "sdk-pool", 0, ["sdk-dep-flow"]);
});

describe("GET /v1/workflows/deployments through the SDK", () => {
  it("parses the list, the detail (GET /v1/workflows/deployments/{name}) and the workers (GET /v1/workflows/deployments/{name}/workers)", async () => {
    const page = await client.workflows.deployments.listDeployments({ activeOnly: true, workflowName: "sdk-dep-flow" });
    expect(page).toMatchObject({ nextCursor: null, workspaceId: tenant.caller.workspace });
    expect(page.deployments).toEqual([expect.objectContaining({ name: "sdk-pool", isActive: true, workerCount: 1, activeWorkerCount: 1, createdAt: expect.any(Date) })]);

    const detail = await client.workflows.deployments.getDeployment({ name: "sdk-pool" });
    expect(detail).toMatchObject({ name: "sdk-pool", isActive: true, managed: null, workers: [expect.objectContaining({ isActive: true, createdAt: expect.any(Date) })] });

    const workers = await client.workflows.deployments.listDeploymentWorkers({ name: "sdk-pool", workerStatus: "active" });
    expect(workers.workers).toHaveLength(1);
    expect(workers.nextCursor).toBeNull();
  });
});

describe("POST /v1/workflows/deployments through the SDK", () => {
  it("parses the 202 ManagedDeploymentResponse of create, PATCH /v1/workflows/deployments/{name}, POST /v1/workflows/deployments/{name}/stop, POST /v1/workflows/deployments/{name}/start, POST /v1/workflows/deployments/{name}/restart and DELETE /v1/workflows/deployments/{name}", async () => {
    const created = await client.workflows.deployments.createDeployment({ name: "sdk-managed", spec: { githubUrl: "https://github.com/acme/worker" }, resources: { replicas: 1 } });
    expect(created).toMatchObject({ name: "sdk-managed", spec: { githubUrl: "https://github.com/acme/worker" }, status: { phase: "Pending" }, stopped: false, isHardened: false, createdAt: expect.any(Date) });

    const updated = await client.workflows.deployments.updateDeployment({ name: "sdk-managed", updateDeploymentRequest: { resources: { cpuLimit: "1" } } });
    expect(updated.resources).toMatchObject({ replicas: 1, cpuLimit: "1" });

    expect((await client.workflows.deployments.stopDeployment({ name: "sdk-pool" })).stopped).toBe(true);
    expect((await client.workflows.deployments.startDeployment({ name: "sdk-pool" })).stopped).toBe(false);
    expect((await client.workflows.deployments.restartDeployment({ name: "sdk-pool" })).spec.restartedAt).toEqual(expect.any(String));

    const detail = await client.workflows.deployments.getDeployment({ name: "sdk-managed" });
    expect(detail.managed).toMatchObject({ name: "sdk-managed", status: { phase: "Pending" } });

    expect((await client.workflows.deployments.deleteDeployment({ name: "sdk-managed" })).name).toBe("sdk-managed");
  });
});
