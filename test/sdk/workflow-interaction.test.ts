/**
 * Talking to a running execution through the official SDK, with the reference worker serving the example
 * workflow examples/workflows/approval: it waits for a signal, answers queries and an update (whose
 * handler runs an activity on the worker), completes; then its history, its run's history, and a reset.
 */
import { Mistral } from "@mistralai/mistralai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorker, type RunningWorker, type WorkflowModule } from "../../scripts/worker/run-worker.js";
import { useEmbeddedApi } from "../support/api.js";
import { rejectionOf, sdkClient } from "../support/sdk.js";

const approval = (await import(new URL("../../examples/workflows/approval/activities.mjs", import.meta.url).href)) as WorkflowModule;

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
let worker: RunningWorker;

beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  worker = runWorker({ url: api.url, key: tenant.key, deployment: "examples", name: "sdk-approval", module: approval, pollWaitSeconds: 1, concurrency: 2, log: () => {} });
  await worker.registered;
});
afterAll(() => worker.stop());

async function closed(executionId: string) {
  for (let i = 0; i < 200; i += 1) {
    const execution = await client.workflows.executions.getWorkflowExecution({ executionId });
    if (execution.status !== "RUNNING") return execution;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${executionId} is still running`);
}

async function queried(executionId: string, name: string, done: (result: unknown) => boolean) {
  for (let i = 0; i < 200; i += 1) {
    const answer = await client.workflows.executions.queryWorkflowExecution({ executionId, queryInvocationBody: { name } });
    if (done(answer.result)) return answer;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`query ${name} of ${executionId} never settled`);
}

describe("POST /v1/workflows/executions/{execution_id}/signals, /queries, /updates through the official SDK", () => {
  it("signals, queries and updates an execution of the example (an activity inside the update handler) until it completes", async () => {
    await client.workflows.executeWorkflow({ workflowIdentifier: "approval", workflowExecutionRequest: { executionId: "sdk-approval-1", input: { request: "new laptop" } } });

    // The approval signal, sent first, waits in the inbox until the program gets to it.
    const accepted = await client.workflows.executions.signalWorkflowExecution({ executionId: "sdk-approval-1", signalInvocationBody: { name: "approve", input: { by: "ada" } } });
    expect(accepted).toEqual({ message: "Signal accepted" });
    const stage = await queried("sdk-approval-1", "stage", (r) => r === "waiting for a note");
    expect(stage).toEqual({ queryName: "stage", result: "waiting for a note" });

    const updated = await client.workflows.executions.updateWorkflowExecution({ executionId: "sdk-approval-1", updateInvocationBody: { name: "add_note", input: { text: " urgent " } } });
    expect(updated).toEqual({ updateName: "add_note", result: { note: "[new laptop] urgent" } });

    const done = await closed("sdk-approval-1");
    expect(done).toMatchObject({ status: "COMPLETED", result: { request: "new laptop", note: "[new laptop] urgent", approved_by: "ada", approved: true } });
    const refused = await rejectionOf(client.workflows.executions.queryWorkflowExecution({ executionId: "sdk-approval-1", queryInvocationBody: { name: "stage" } }));
    expect(refused).toMatchObject({ statusCode: 409 });
  });

  it("refuses an undeclared signal with the SDK's HTTPValidationError", async () => {
    await client.workflows.executeWorkflow({ workflowIdentifier: "approval", workflowExecutionRequest: { executionId: "sdk-approval-2", input: { request: "chair" } } });

    const refused = await rejectionOf(client.workflows.executions.signalWorkflowExecution({ executionId: "sdk-approval-2", signalInvocationBody: { name: "reject", input: {} } }));

    expect(refused).toMatchObject({ statusCode: 422, name: "HTTPValidationError" });
    await client.workflows.executions.terminateWorkflowExecution({ executionId: "sdk-approval-2" });
  });
});

describe("GET /v1/workflows/executions/{execution_id}/history, GET /v1/workflows/runs/{run_id}/history, POST /v1/workflows/executions/{execution_id}/reset through the official SDK", () => {
  it("reads the histories, then resets to the approval wait: the new run takes the signal again and completes", async () => {
    await client.workflows.executeWorkflow({ workflowIdentifier: "approval", workflowExecutionRequest: { executionId: "sdk-approval-3", input: { request: "desk" } } });
    await queried("sdk-approval-3", "stage", (r) => r === "waiting for a note");
    await client.workflows.executions.updateWorkflowExecution({ executionId: "sdk-approval-3", updateInvocationBody: { name: "add_note", input: { text: "ok" } } });
    await client.workflows.executions.signalWorkflowExecution({ executionId: "sdk-approval-3", signalInvocationBody: { name: "approve", input: { by: "bob" } } });
    const first = await closed("sdk-approval-3");

    const history = (await client.workflows.executions.getWorkflowExecutionHistory({ executionId: "sdk-approval-3", decodePayloads: true })) as { events: Record<string, any>[] };
    const types = history.events.map((e) => e.eventType as string);
    expect(types[0]).toBe("EVENT_TYPE_WORKFLOW_EXECUTION_STARTED");
    expect(types.at(-1)).toBe("EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED");
    expect(types).toEqual(expect.arrayContaining(["EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED", "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED", "EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED", "EVENT_TYPE_ACTIVITY_TASK_COMPLETED"]));
    const runHistory = await client.workflows.runs.getRunHistory({ runId: first.runId!, decodePayloads: true });
    expect(runHistory).toEqual(history);

    const point = history.events.find((e) => e.workflowTaskCompletedEventAttributes?.state_name === "AwaitApproval")!;
    await client.workflows.executions.resetWorkflow({ executionId: "sdk-approval-3", resetInvocationBody: { eventId: Number(point.eventId), reason: "again" } });
    const again = await closed("sdk-approval-3");
    expect(again.runId).not.toBe(first.runId);
    expect(again).toMatchObject({ status: "COMPLETED", result: { request: "desk", approved_by: "bob" } });

    const invalid = await rejectionOf(client.workflows.executions.resetWorkflow({ executionId: "sdk-approval-3", resetInvocationBody: { eventId: 1 } }));
    expect(invalid).toMatchObject({ statusCode: 422, name: "HTTPValidationError" });
  });
});
