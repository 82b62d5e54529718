import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as traceEvents } from "../../../functions/workflows/trace-events.js";
import { handler as traceSummary } from "../../../functions/workflows/trace-summary.js";
import { derivedSpanId } from "../../../shared/domain/workflows/trace-summary.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aSpan, aSpanItems } from "../../support/span-items.js";
import { seedEvents, seedRun } from "../../support/workflow-builders.js";

vi.mock("../../../shared/engine/workflow-machines.js", () => ({}));
vi.mock("../../../shared/engine/timers.js", () => ({}));

const dynamo = mockDynamo();
const caller = aCaller();
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

let tables: ReturnType<typeof serveTables>;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});

const at = (id: string, which: "summary" | "events", query: Record<string, string> = {}, who = caller) =>
  anEvent({ path: `/v1/workflows/executions/${id}/trace/${which}`, resource: `/v1/workflows/executions/{execution_id}/trace/${which}`, pathParameters: { execution_id: id }, query, caller: who });

const T0_MICROS = Date.parse("2026-01-01T00:00:00.000Z") * 1000;

describe("GET /v1/workflows/executions/{execution_id}/trace/summary", () => {
  it("answers the execution and its latest run as a span tree: the run, a child span per activity with its events", async () => {
    const run = await seedRun(caller.workspace, { executionId: "ts-1", status: "COMPLETED", result: { ok: 1 } });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const response = await invoke(traceSummary, at("ts-1", "summary"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ workflow_name: run.workflowName, execution_id: "ts-1", root_execution_id: "ts-1", run_id: run.runId, status: "COMPLETED", result: { ok: 1 }, total_duration_ms: 1000 });
    expect(response.json).not.toHaveProperty("registered_by");
    const tree = response.json.span_tree;
    expect(tree).toMatchObject({ span_id: derivedSpanId("run", run.runId), name: run.workflowName, start_time_unix_nano: T0_MICROS, end_time_unix_nano: T0_MICROS + 1_000_000 });
    expect(tree.attributes).toMatchObject({ "workflow.execution_id": "ts-1", "workflow.status": "COMPLETED" });
    expect(tree.events.map((e: { name: string }) => e.name)).toEqual(["WORKFLOW_EXECUTION_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
    // Payloads are values; objects are JSON text (trace attributes are scalars or arrays).
    expect(tree.events[1].attributes.result).toBe('{"ok":1}');
    // seedEvents gives each activity event its own task id: two activity spans, one ended, one running.
    expect(tree.children.map((c: { name: string; attributes: Record<string, unknown>; end_time_unix_nano: number | null }) => [c.name, c.attributes["workflow.task_status"], c.end_time_unix_nano])).toEqual([
      ["summarize", "RUNNING", null],
      ["summarize", "COMPLETED", T0_MICROS + 2000],
    ]);
  });

  it("hangs the model calls kept in the run's trace under the run", async () => {
    await seedRun(caller.workspace, { executionId: "ts-2", traceId: TRACE });
    const chat = aSpan(caller, { trace_id: TRACE, workflow_name: "wf" });
    tables.put("telemetry", ...aSpanItems([chat, aSpan(aCaller(), { trace_id: TRACE })]));

    const response = await invoke(traceSummary, at("ts-2", "summary"));

    expect(response.json.span_tree.end_time_unix_nano).toBeNull();
    expect(response.json.span_tree.children).toEqual([expect.objectContaining({ span_id: chat.span_id, name: "chat mistral-small-latest", children: [] })]);
    expect(response.json.span_tree.children[0].start_time_unix_nano).toBe(Date.parse(chat.start_time) * 1000);
  });

  it("answers 404 WF_1100 for an unknown execution and for another workspace's", async () => {
    const stranger = aCaller();
    await seedRun(stranger.workspace, { executionId: "ts-theirs" });

    const unknown = await invoke(traceSummary, at("nope", "summary"));
    const theirs = await invoke(traceSummary, at("ts-theirs", "summary"));

    expect(unknown.statusCode).toBe(404);
    expect(unknown.json).toMatchObject({ code: "WF_1100" });
    expect(theirs.statusCode).toBe(404);
  });
});

describe("GET /v1/workflows/executions/{execution_id}/trace/events", () => {
  it("answers the run's events as trace events, activities keyed by their task id, times in microseconds", async () => {
    const run = await seedRun(caller.workspace, { executionId: "te-1", status: "COMPLETED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "ACTIVITY_TASK_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);

    const response = await invoke(traceEvents, at("te-1", "events"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ execution_id: "te-1", status: "COMPLETED" });
    expect(response.json.events.map((e: { type: string; name: string; id: string; internal: boolean }) => [e.type, e.name, e.id, e.internal])).toEqual([
      ["EVENT", "WORKFLOW_EXECUTION_STARTED", expect.any(String), false],
      ["EVENT", "ACTIVITY_TASK_STARTED", "task-1", false],
      ["EVENT", "WORKFLOW_EXECUTION_COMPLETED", expect.any(String), false],
    ]);
    expect(response.json.events[0].timestamp_unix_nano).toBe(T0_MICROS);
    expect(response.json.events[1].attributes).toMatchObject({ activity_name: "summarize", task_id: "task-1", input: '{"i":1}' });
  });

  it("merges an activity's events into one progress event with merge_same_id_events", async () => {
    const run = await seedRun(caller.workspace, { executionId: "te-2", status: "FAILED" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);
    const { eventStore } = await import("../../../shared/store/workflows/events.js");
    const { eventOf, jsonPayload } = await import("../../../shared/domain/workflows/events.js");
    const t = Date.parse(run.startTime);
    await eventStore.append(caller.workspace, eventOf(run, "ACTIVITY_TASK_STARTED", { task_id: "a1", activity_name: "fetch", input: jsonPayload({}) }, { id: "e2", nowMs: t + 10 }));
    await eventStore.append(caller.workspace, eventOf(run, "ACTIVITY_TASK_FAILED", { task_id: "a1", activity_name: "fetch", attempt: 1, failure: { message: "boom" } }, { id: "e3", nowMs: t + 30 }));

    const response = await invoke(traceEvents, at("te-2", "events", { merge_same_id_events: "true" }));

    expect(response.json.events).toHaveLength(2);
    expect(response.json.events[1]).toMatchObject({ type: "EVENT_PROGRESS", name: "fetch", id: "a1", status: "FAILED", start_time_unix_ms: t + 10, end_time_unix_ms: t + 30, error: "boom" });
  });

  it("adds the platform's own entries (states entered, signals) only with include_internal_events", async () => {
    const run = await seedRun(caller.workspace, { executionId: "te-3" });
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);
    const { inboxStore } = await import("../../../shared/store/workflows/inbox.js");
    await inboxStore.addStep({ workspace: caller.workspace, runId: run.runId, id: "s1", state: "Summarize", input: { a: 1 }, atMs: Date.parse(run.startTime) + 5 });

    const without = await invoke(traceEvents, at("te-3", "events"));
    const withInternal = await invoke(traceEvents, at("te-3", "events", { include_internal_events: "true" }));

    expect(without.json.events.map((e: { name: string }) => e.name)).toEqual(["WORKFLOW_EXECUTION_STARTED"]);
    expect(withInternal.json.events.map((e: { name: string; internal: boolean }) => [e.name, e.internal])).toEqual([
      ["WORKFLOW_EXECUTION_STARTED", false],
      ["WORKFLOW_TASK_COMPLETED", true],
    ]);
  });

  it("answers 404 WF_1100 for another workspace's execution and 422 for a bad flag", async () => {
    await seedRun(aCaller().workspace, { executionId: "te-theirs" });
    await seedRun(caller.workspace, { executionId: "te-4" });

    expect((await invoke(traceEvents, at("te-theirs", "events"))).statusCode).toBe(404);
    expect((await invoke(traceEvents, at("te-4", "events", { merge_same_id_events: "perhaps" }))).statusCode).toBe(422);
  });
});
