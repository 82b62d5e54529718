/**
 * Watching one execution through the local API Gateway stand-in against DynamoDB Local: its event stream,
 * its trace summary and trace events, its logs (issue 29). Runs and events are seeded through the stores.
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { seedEvents, seedRun, sseFrames, workflowsClient } from "../../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const ws = () => tenant.caller.workspace;
const enc = encodeURIComponent;

describe("GET /v1/workflows/executions/{execution_id}/stream", () => {
  it("streams the execution's events as SSE frames until it closed, resumes after Last-Event-ID, and answers 404 for another workspace's", async () => {
    const run = await seedRun(ws(), { executionId: "obs-stream", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
    const other = await newTenant();
    await seedRun(other.caller.workspace, { executionId: "obs-theirs", status: "COMPLETED" });

    const whole = await http.request("GET", `/v1/workflows/executions/${enc("obs-stream")}/stream`);
    const resumed = await http.request("GET", `/v1/workflows/executions/${enc("obs-stream")}/stream`, { query: { last_event_id: "0" }, headers: { "last-event-id": "2" } });
    const theirs = await http.request("GET", `/v1/workflows/executions/${enc("obs-theirs")}/stream`);

    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("text/event-stream");
    expect(whole.body).toMatch(/^id: 1\nevent: workflow\.event\ndata: \{/);
    expect(sseFrames(whole.body).map((f) => [f.id, f.data.broker_sequence, f.data.data.event_type])).toEqual([
      ["1", 1, "WORKFLOW_EXECUTION_STARTED"],
      ["2", 2, "ACTIVITY_TASK_STARTED"],
      ["3", 3, "WORKFLOW_EXECUTION_COMPLETED"],
    ]);
    expect(sseFrames(resumed.body).map((f) => f.id)).toEqual(["3"]);
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe("WF_1100");
  });
});

describe("GET /v1/workflows/executions/{execution_id}/trace/summary", () => {
  it("answers the latest run as a span tree with a span per activity, and 404 for another workspace's", async () => {
    const run = await seedRun(ws(), { executionId: "obs-trace", status: "COMPLETED", result: "done" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
    const other = await newTenant();
    await seedRun(other.caller.workspace, { executionId: "obs-trace-theirs" });

    const summary = await http.request("GET", "/v1/workflows/executions/obs-trace/trace/summary");
    const theirs = await http.request("GET", "/v1/workflows/executions/obs-trace-theirs/trace/summary");

    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ execution_id: "obs-trace", run_id: run.runId, status: "COMPLETED", result: "done" });
    expect(summary.body.span_tree.events.map((e: { name: string }) => e.name)).toEqual(["WORKFLOW_EXECUTION_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
    expect(summary.body.span_tree.children.map((c: { name: string }) => c.name)).toEqual(["summarize"]);
    expect(theirs.status).toBe(404);
  });
});

describe("GET /v1/workflows/executions/{execution_id}/trace/events", () => {
  it("answers the run's trace events, merged per activity on request", async () => {
    const run = await seedRun(ws(), { executionId: "obs-trace-events", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const plain = await http.request("GET", "/v1/workflows/executions/obs-trace-events/trace/events");
    const merged = await http.request("GET", "/v1/workflows/executions/obs-trace-events/trace/events", { query: { merge_same_id_events: "true", include_internal_events: "true" } });

    expect(plain.status).toBe(200);
    expect(plain.body.events.map((e: { type: string; name: string }) => [e.type, e.name])).toEqual([
      ["EVENT", "WORKFLOW_EXECUTION_STARTED"],
      ["EVENT", "ACTIVITY_TASK_STARTED"],
      ["EVENT", "WORKFLOW_EXECUTION_COMPLETED"],
    ]);
    expect(merged.body.events[1]).toMatchObject({ type: "EVENT_PROGRESS", name: "summarize", status: "RUNNING", end_time_unix_ms: null });
  });
});
