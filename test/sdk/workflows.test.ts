/**
 * The workflow routes through the official SDK: every answer must parse with its zod schemas (dates,
 * nullables, the execute union, SSE frames). Records are seeded through the stores (no worker needed).
 */
import { Mistral } from "@mistralai/mistralai";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { rejectionOf, sdkClient } from "../support/sdk.js";
import { aDefinition, seedEvents, seedRegistration, seedRun, type Seeded } from "../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
let seeded: Seeded;

beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  seeded = await seedRegistration(tenant.caller.workspace, {
    organization: tenant.caller.organization,
    workflow: { name: "sdk-flow", tags: ["sdk"] },
    registration: { definition: aDefinition({ execution_timeout: 60 }) },
  });
});

describe("workflows through the official SDK", () => {
  it("lists, gets and updates workflows, and lists registrations", async () => {
    const page = await client.workflows.getWorkflows({ limit: 10 });
    expect(page.result.workflows.map((w) => w.name)).toContain("sdk-flow");
    expect(page.result.nextCursor).toBeNull();

    const got = await client.workflows.getWorkflow({ workflowIdentifier: "sdk-flow" });
    expect(got.workflow).toMatchObject({ id: seeded.workflow.id, type: "code", active: false, workspaceId: tenant.caller.workspace });

    const updated = await client.workflows.updateWorkflow({ workflowIdentifier: seeded.workflow.id, workflowUpdateRequest: { displayName: "SDK flow", tags: ["a"] } });
    expect(updated.workflow).toMatchObject({ displayName: "SDK flow", tags: ["a"] });

    const registrations = await client.workflows.getWorkflowRegistrations({ withWorkflow: true, workflowId: seeded.workflow.id });
    expect(registrations.workflowRegistrations).toEqual([expect.objectContaining({ id: seeded.registration.id, deploymentName: "default", workflow: expect.objectContaining({ name: "sdk-flow" }) })]);
    expect(registrations.workflowRegistrations[0]!.definition.executionTimeout).toBe(60);
    expect(registrations.workflowVersions).toHaveLength(1);
  });

  it("executes a workflow and reads the execution back (the seeded program is not published: it fails to start)", async () => {
    const answer = await client.workflows.executeWorkflow({ workflowIdentifier: "sdk-flow", workflowExecutionRequest: { input: { name: "Ada" }, executionId: "sdk-exec-1" } });
    expect(answer).toMatchObject({ executionId: "sdk-exec-1", workflowName: "sdk-flow", rootExecutionId: "sdk-exec-1" });

    const execution = await client.workflows.executions.getWorkflowExecution({ executionId: "sdk-exec-1" });
    expect(execution.startTime).toBeInstanceOf(Date);
    expect(execution).toMatchObject({ executionId: "sdk-exec-1", workflowName: "sdk-flow" });
  });

  it("reads executions and runs, and stops them", async () => {
    const closed = await seedRun(tenant.caller.workspace, { executionId: "sdk-closed", status: "COMPLETED", result: { n: 1 } }, seeded);

    const execution = await client.workflows.executions.getWorkflowExecution({ executionId: "sdk-closed" });
    expect(execution).toMatchObject({ status: "COMPLETED", result: { n: 1 }, totalDurationMs: 1000, runId: closed.runId });
    expect(execution.endTime).toBeInstanceOf(Date);

    const run = await client.workflows.runs.getRun({ runId: closed.runId });
    expect(run.executionId).toBe("sdk-closed");
    const runs = await client.workflows.runs.listRuns({ pageSize: 100 });
    expect(runs.result.executions.map((e) => e.runId)).toContain(closed.runId);

    const refused = (await rejectionOf(client.workflows.executions.terminateWorkflowExecution({ executionId: "sdk-closed" }))) as { statusCode?: number };
    expect(refused?.statusCode).toBe(409);

    const open = await seedRun(tenant.caller.workspace, { executionId: "sdk-open" }, seeded);
    await client.workflows.executions.cancelWorkflowExecution({ executionId: "sdk-open" });
    expect((await client.workflows.runs.getRun({ runId: open.runId })).status).toBe("CANCELED");

    await seedRun(tenant.caller.workspace, { executionId: "sdk-open-2" }, seeded);
    const batch = await client.workflows.executions.batchTerminateWorkflowExecutions({ executionIds: ["sdk-open-2", "sdk-nope"] });
    expect(batch.results).toEqual({ "sdk-open-2": { status: "success", error: null }, "sdk-nope": { status: "failure", error: expect.any(String) } });
    const cancels = await client.workflows.executions.batchCancelWorkflowExecutions({ executionIds: ["sdk-nope"] });
    expect(cancels.results?.["sdk-nope"]?.status).toBe("failure");
  });

  it("answers metrics", async () => {
    const metrics = await client.workflows.metrics.getWorkflowMetrics({ workflowName: "sdk-flow" });
    expect(metrics.executionCount.value).toBeGreaterThanOrEqual(1);
    expect(metrics.retryRate.value).toBe(-1);
    expect(Array.isArray(metrics.latencyOverTime.value)).toBe(true);
  });

  it("lists and streams events", async () => {
    const run = await seedRun(tenant.caller.workspace, { executionId: "sdk-events", status: "COMPLETED", result: "done" }, seeded);
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const listed = await client.workflows.events.getWorkflowEvents({ rootWorkflowExecId: "sdk-events" });
    expect(listed.events.map((e) => e.eventType)).toEqual(["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const stream = await client.workflows.events.getStreamEvents({ rootWorkflowExecId: "sdk-events" });
    const frames = [];
    for await (const frame of stream) frames.push(frame);
    expect(frames.map((f) => f.event)).toEqual(["workflow.event", "workflow.event", "workflow.event", "workflow.event"]);
    const payloads = frames.map((f) => f.data as { brokerSequence: number; data: { eventType: string }; workflowContext: { workflowExecId: string } });
    expect(payloads.map((p) => p.brokerSequence)).toEqual([1, 2, 3, 4]);
    expect(payloads.at(-1)!.data.eventType).toBe("WORKFLOW_EXECUTION_COMPLETED");
    expect(payloads[0]!.workflowContext.workflowExecId).toBe("sdk-events");

    const resumed = await client.workflows.events.getStreamEvents({ workflowExecId: "sdk-events", startSeq: 4 });
    const rest = [];
    for await (const frame of resumed) rest.push(frame);
    expect(rest.map((f) => f.id)).toEqual(["4"]);
  });
});
