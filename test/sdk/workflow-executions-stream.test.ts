/**
 * Watching one execution through the official SDK (issue 29): `executions.stream`, the trace summary and
 * trace events, and the logs of an execution and a deployment. Runs, events and log lines are seeded
 * through the stores (no worker needed); every answer must parse with the SDK's own schemas.
 */
import { Mistral } from "@mistralai/mistralai";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { rejectionOf, sdkClient } from "../support/sdk.js";
import { lineOf } from "../../shared/domain/workflows/logs.js";
import type { RunRecord } from "../../shared/domain/workflows/records.js";
import { logStore } from "../../shared/store/workflows/logs.js";
import { aDefinition, seedEvents, seedRegistration, seedRun, type Seeded } from "../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
let seeded: Seeded;

beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  seeded = await seedRegistration(tenant.caller.workspace, { organization: tenant.caller.organization, workflow: { name: "sdk-watched" }, registration: { definition: aDefinition() } });
});

describe("GET /v1/workflows/executions/{execution_id}/stream through the official SDK", () => {
  it("streams an execution's events until its close, and resumes after last_event_id", async () => {
    const run = await seedRun(tenant.caller.workspace, { executionId: "sdk-watch-1", status: "COMPLETED", result: "done" }, seeded);
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const stream = await client.workflows.executions.stream({ executionId: "sdk-watch-1", eventSource: "DATABASE" });
    const frames = [];
    for await (const frame of stream) frames.push(frame);
    expect(frames.map((f) => [f.id, f.event])).toEqual([
      ["1", "workflow.event"],
      ["2", "workflow.event"],
      ["3", "workflow.event"],
      ["4", "workflow.event"],
    ]);
    const payloads = frames.map((f) => f.data as { brokerSequence: number; data: { eventType: string }; workflowContext: { workflowExecId: string } });
    expect(payloads.at(-1)!.data.eventType).toBe("WORKFLOW_EXECUTION_COMPLETED");
    expect(payloads[0]!.workflowContext.workflowExecId).toBe("sdk-watch-1");

    const resumed = await client.workflows.executions.stream({ executionId: "sdk-watch-1", lastEventId: "2" });
    const rest = [];
    for await (const frame of resumed) rest.push(frame);
    expect(rest.map((f) => f.id)).toEqual(["3", "4"]);

    expect(await rejectionOf(client.workflows.executions.stream({ executionId: "sdk-nobody" }))).toMatchObject({ statusCode: 404 });
  });
});

describe("GET /v1/workflows/executions/{execution_id}/trace/summary and /trace/events through the official SDK", () => {
  it("parses the span tree and the trace events, plain and merged", async () => {
    const run = await seedRun(tenant.caller.workspace, { executionId: "sdk-watch-trace", status: "COMPLETED", result: { n: 1 } }, seeded);
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const summary = await client.workflows.executions.getWorkflowExecutionTraceSummary({ executionId: "sdk-watch-trace" });
    expect(summary).toMatchObject({ executionId: "sdk-watch-trace", runId: run.runId, status: "COMPLETED", result: { n: 1 } });
    expect(summary.startTime).toBeInstanceOf(Date);
    expect(summary.spanTree?.name).toBe("sdk-watched");
    expect(summary.spanTree?.children?.map((c) => c.name)).toEqual(["summarize", "summarize"]);
    expect(summary.spanTree?.events.map((e) => e.name)).toEqual(["WORKFLOW_EXECUTION_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const events = await client.workflows.executions.getWorkflowExecutionTraceEvents({ executionId: "sdk-watch-trace" });
    expect(events.events?.map((e) => e.name)).toEqual(["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);
    const merged = await client.workflows.executions.getWorkflowExecutionTraceEvents({ executionId: "sdk-watch-trace", mergeSameIdEvents: true, includeInternalEvents: true });
    expect(merged.events?.[1]).toMatchObject({ type: "EVENT_PROGRESS", name: "summarize", status: "RUNNING" });
    expect(merged.events?.[2]).toMatchObject({ type: "EVENT_PROGRESS", name: "summarize", status: "COMPLETED" });

    expect(await rejectionOf(client.workflows.executions.getWorkflowExecutionTraceSummary({ executionId: "sdk-nobody" }))).toMatchObject({ statusCode: 404 });
  });
});

/** Lines of `run` as a worker's activity would have sent them (one microsecond apart, a second ago). */
async function seedLines(run: RunRecord, bodies: string[]) {
  const base = (Date.now() - 1_000) * 1000;
  await logStore.append(
    bodies.map((body, i) =>
      lineOf(run, { atMicros: base + i, id: `a${i}`, severity: "INFO", body, spanId: "0123456789abcdef", attributes: { source: "worker", worker_name: "sdk-worker", activity_id: "t1" } }),
    ),
    Math.floor(Date.now() / 1000) + 3600,
  );
}

describe("GET /v1/workflows/executions/{execution_id}/logs and /logs/stream through the official SDK", () => {
  it("lists an execution's lines page by page and streams them as `log` events", async () => {
    const run = await seedRun(tenant.caller.workspace, { executionId: "sdk-watch-logs", status: "COMPLETED" }, seeded);
    await seedLines(run, ["one", "two", "three"]);

    const first = await client.workflows.executions.getWorkflowExecutionLogs({ executionId: "sdk-watch-logs", limit: 2 });
    expect(first.results.map((r) => r.body)).toEqual(["one", "two"]);
    expect(first.results[0]!.timestamp).toBeInstanceOf(Date);
    expect(first.results[0]!.logAttributes).toMatchObject({ worker_name: "sdk-worker", execution_id: "sdk-watch-logs" });
    const second = await client.workflows.executions.getWorkflowExecutionLogs({ executionId: "sdk-watch-logs", cursor: first.nextCursor! });
    expect(second.results.map((r) => r.body)).toEqual(["three"]);
    expect(second.nextCursor).toBeNull();

    const stream = await client.workflows.executions.streamWorkflowExecutionLogs({ executionId: "sdk-watch-logs" });
    const frames = [];
    for await (const frame of stream) frames.push(frame);
    expect(frames.map((f) => [f.event, (f.data as { body: string }).body])).toEqual([
      ["log", "one"],
      ["log", "two"],
      ["log", "three"],
    ]);
    const resumed = await client.workflows.executions.streamWorkflowExecutionLogs({ executionId: "sdk-watch-logs", lastEventId: frames[1]!.id! });
    const rest = [];
    for await (const frame of resumed) rest.push(frame);
    expect(rest.map((f) => (f.data as { body: string }).body)).toEqual(["three"]);

    expect(await rejectionOf(client.workflows.executions.getWorkflowExecutionLogs({ executionId: "sdk-nobody" }))).toMatchObject({ statusCode: 404 });
  });
});

describe("GET /v1/workflows/deployments/{name}/logs and /logs/stream through the official SDK", () => {
  it("lists a deployment's lines and tails them", async () => {
    const run = await seedRun(tenant.caller.workspace, { executionId: "sdk-watch-deployment" }, seeded);
    await seedLines(run, ["alpha", "beta"]);

    const listed = await client.workflows.deployments.getDeploymentLogs({ name: "default", workerName: "sdk-worker", order: "desc" });
    expect(listed.results.map((r) => r.body).slice(0, 2)).toEqual(["beta", "alpha"]);

    const stream = await client.workflows.deployments.streamDeploymentLogs({ name: "default", workflowName: "sdk-watched" });
    const frames = [];
    for await (const frame of stream) {
      frames.push(frame);
      if ((frame.data as { body?: string }).body === "beta") break;
    }
    expect(frames.map((f) => (f.data as { body: string }).body)).toContain("alpha");
    expect(frames.every((f) => f.event === "log")).toBe(true);

    expect(await rejectionOf(client.workflows.deployments.getDeploymentLogs({ name: "nobody" }))).toMatchObject({ statusCode: 404 });
  });
});
