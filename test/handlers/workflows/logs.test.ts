import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as deploymentLogs } from "../../../functions/deployments/logs.js";
import { handler as deploymentLogsStream } from "../../../functions/deployments/logs-stream.js";
import { handler as taskLogs } from "../../../functions/workers/logs.js";
import { handler as executionLogs } from "../../../functions/workflows/execution-logs.js";
import { handler as executionLogsStream } from "../../../functions/workflows/execution-logs-stream.js";
import type { Caller } from "../../../shared/domain/caller.js";
import { lineOf, spanIdOf } from "../../../shared/domain/workflows/logs.js";
import { logStore } from "../../../shared/store/workflows/logs.js";
import { writeEvent } from "../../../shared/services/workflows/run-close.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke, invokeStream } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aRun, sseFrames, T0 } from "../../support/workflow-builders.js";
import { aClaimedTask } from "../workers/task-setup.js";

vi.mock("../../../shared/engine/workflow-machines.js", () => ({ heartbeatTask: vi.fn(), completeTask: vi.fn(), failTask: vi.fn() }));
vi.mock("../../../shared/engine/timers.js", () => ({}));

const dynamo = mockDynamo();
const caller = aCaller();

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
});

const report = (taskId: string, lines: unknown[], worker = "w1", who: Caller = caller) =>
  invoke(taskLogs, aJsonEvent({ deployment_name: "pool", worker_name: worker, lines }, { path: `/v1/workflows/tasks/${taskId}/logs`, pathParameters: { task_id: taskId }, caller: who }));

const execution = (id: string, query: Record<string, string> = {}, who: Caller = caller) =>
  anEvent({ path: `/v1/workflows/executions/${id}/logs`, resource: "/v1/workflows/executions/{execution_id}/logs", pathParameters: { execution_id: id }, query, caller: who });
const executionStream = (id: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  anEvent({ path: `/v1/workflows/executions/${id}/logs/stream`, resource: "/v1/workflows/executions/{execution_id}/logs/stream", pathParameters: { execution_id: id }, query, headers, caller });
const deployment = (name: string, which: "logs" | "logs/stream", query: Record<string, string> = {}, who: Caller = caller) =>
  anEvent({ path: `/v1/workflows/deployments/${name}/${which}`, resource: `/v1/workflows/deployments/{name}/${which}`, pathParameters: { name }, query, caller: who });

/** A claimed task whose worker reported `messages`; the run is closed (COMPLETED) a while ago unless told. */
async function aReportedTask(messages: string[], options: { closed?: boolean } = {}) {
  const claimed = await aClaimedTask(dynamo, caller);
  await workflowRegistry.ensureDeployment({ id: "d1", workspace: caller.workspace, name: "pool", createdAt: T0, updatedAt: T0, stopped: false });
  const response = await report(claimed.task.taskId, messages.map((message) => ({ message })));
  expect(response.statusCode).toBe(200);
  if (options.closed !== false) await runStore.transition(caller.workspace, claimed.run.runId, "COMPLETED", { endTime: new Date(Date.now() - 10_000).toISOString() });
  return claimed;
}

describe("POST /v1/workflows/tasks/{task_id}/logs", () => {
  it("keeps the activity's lines with the execution and the deployment, attributed to the task and the worker", async () => {
    const { task, run, tables } = await aClaimedTask(dynamo, caller, { run: { traceId: "4bf92f3577b34da6a3ce929d0e0e4736" } });

    const response = await report(task.taskId, [{ message: "reading the file", level: "DEBUG", timestamp: "2026-01-01T00:00:00Z" }, { message: "done" }]);

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ accepted: 2 });
    const items = tables.items("executions").filter((item) => String(item.sk).startsWith("L#"));
    expect(items.map((item) => String(item.pk).split("#")[0])).toEqual(expect.arrayContaining(["WFLOG", "WFDEPLOG"]));
    expect(items).toHaveLength(4);
    expect(items.every((item) => typeof item.ttl === "number" && item.ttl > Date.now() / 1000 + 29 * 86_400)).toBe(true);
    const line = items.find((item) => String(item.pk).startsWith("WFLOG#") && (item.line as { body: string }).body === "reading the file")!.line as Record<string, unknown>;
    expect(line).toMatchObject({
      severity: "DEBUG",
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: spanIdOf(run.runId, task.taskId),
      attributes: { source: "worker", worker_name: "w1", activity_id: task.taskId, activity_name: task.activity, execution_id: run.executionId, run_id: run.runId, worker_timestamp: "2026-01-01T00:00:00Z" },
    });
  });

  it("refuses more than 100 lines or a line over 8,192 characters with 422, and over 256 KiB in a request with 413, writing nothing", async () => {
    const { task, tables } = await aClaimedTask(dynamo, caller);

    const many = await report(task.taskId, Array.from({ length: 101 }, () => ({ message: "x" })));
    const long = await report(task.taskId, [{ message: "x".repeat(8_193) }]);
    const heavy = await report(task.taskId, Array.from({ length: 40 }, () => ({ message: "é".repeat(4_000) })));

    expect(many.statusCode).toBe(422);
    expect(many.json.code).toBe("WF_1001");
    expect(long.statusCode).toBe(422);
    expect(heavy.statusCode).toBe(413);
    expect(tables.items("executions").filter((item) => String(item.sk).startsWith("L#"))).toEqual([]);
  });

  it("answers 404 to another worker, to another workspace and for an unknown task", async () => {
    const { task } = await aClaimedTask(dynamo, caller);

    expect((await report(task.taskId, [{ message: "x" }], "w2")).statusCode).toBe(404);
    expect((await report(task.taskId, [{ message: "x" }], "w1", aCaller())).statusCode).toBe(404);
    expect((await report("00000000-0000-4000-8000-000000000000", [{ message: "x" }])).statusCode).toBe(404);
  });
});

describe("GET /v1/workflows/executions/{execution_id}/logs", () => {
  it("lists the worker's lines and the engine's lines in time order, as OA:ExecutionLogRecord, paged by cursor", async () => {
    const { run, task } = await aReportedTask(["one", "two"]);
    await writeEvent(run, "WORKFLOW_EXECUTION_COMPLETED", { task_id: run.runId, result: { type: "json", value: { secret: "s3cr3t" }, encoding_options: [] }, attempt: 1 });

    const first = await invoke(executionLogs, execution(run.executionId, { limit: "2" }));
    const second = await invoke(executionLogs, execution(run.executionId, { limit: "2", cursor: first.json.next_cursor }));

    expect(first.statusCode).toBe(200);
    expect(first.json.results.map((r: { body: string }) => r.body)).toEqual(["one", "two"]);
    expect(first.json.results[0]).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      trace_id: "",
      span_id: spanIdOf(run.runId, task.taskId),
      severity_text: "INFO",
      body: "one",
      log_attributes: expect.objectContaining({ source: "worker", activity_id: task.taskId }),
    });
    expect(second.json.results).toEqual([expect.objectContaining({ body: `Workflow ${run.workflowName} completed`, log_attributes: expect.objectContaining({ source: "engine", event_type: "WORKFLOW_EXECUTION_COMPLETED" }) })]);
    // The engine's line names what happened, never a payload.
    expect(JSON.stringify(second.json)).not.toContain("s3cr3t");
    expect(second.json.next_cursor).toBeNull();
  });

  it("filters by activity and run, sorts newest first with order=desc, and bounds by time", async () => {
    const { run, task } = await aReportedTask(["one", "two"]);

    const desc = await invoke(executionLogs, execution(run.executionId, { order: "desc" }));
    const byActivity = await invoke(executionLogs, execution(run.executionId, { activity_id: "other" }));
    const byRun = await invoke(executionLogs, execution(run.executionId, { run_id: run.runId, activity_id: task.taskId }));
    const before = await invoke(executionLogs, execution(run.executionId, { before: "2020-01-01T00:00:00Z" }));

    expect(desc.json.results.map((r: { body: string }) => r.body)).toEqual(["two", "one"]);
    expect(byActivity.json.results).toEqual([]);
    expect(byRun.json.results).toHaveLength(2);
    expect(before.json.results).toEqual([]);
  });

  it("answers 404 WF_1100 for another workspace's execution and 422 for a cursor it did not issue", async () => {
    const { run } = await aReportedTask(["one"]);

    const theirs = await invoke(executionLogs, execution(run.executionId, {}, aCaller()));
    const bad = await invoke(executionLogs, execution(run.executionId, { cursor: "garbage" }));

    expect(theirs.statusCode).toBe(404);
    expect(theirs.json.code).toBe("WF_1100");
    expect(bad.statusCode).toBe(422);
  });
});

describe("GET /v1/workflows/executions/{execution_id}/logs/stream", () => {
  it("sends every line of a closed execution as `log` frames and ends; resumes after Last-Event-ID", async () => {
    const { run } = await aReportedTask(["one", "two", "three"]);

    const whole = await invokeStream(executionLogsStream, executionStream(run.executionId));
    const frames = sseFrames(whole.body);
    const resumed = await invokeStream(executionLogsStream, executionStream(run.executionId, { last_event_id: "0000000000000000-0" }, { "Last-Event-ID": frames[0]!.id! }));

    expect(whole.metadata?.statusCode).toBe(200);
    expect(whole.metadata?.headers?.["content-type"]).toBe("text/event-stream");
    expect(frames.map((f) => [f.event, f.data.body])).toEqual([
      ["log", "one"],
      ["log", "two"],
      ["log", "three"],
    ]);
    expect(frames[0]!.id).toMatch(/^\d{16}-[0-9a-f]+$/);
    expect(sseFrames(resumed.body).map((f) => f.data.body)).toEqual(["two", "three"]);
  });

  it("follows a running execution until it closes", async () => {
    const { run } = await aReportedTask(["one"], { closed: false });
    setTimeout(() => void runStore.transition(caller.workspace, run.runId, "COMPLETED", { endTime: new Date(Date.now() - 10_000).toISOString() }), 500);

    const response = await invokeStream(executionLogsStream, executionStream(run.executionId));

    expect(sseFrames(response.body).map((f) => f.data.body)).toEqual(["one"]);
  });

  it("refuses an unknown execution with 404 and a Last-Event-ID it did not send with 422, before any frame", async () => {
    const { run } = await aReportedTask(["one"]);

    const unknown = await invokeStream(executionLogsStream, executionStream("ghost"));
    const bad = await invokeStream(executionLogsStream, executionStream(run.executionId, {}, { "Last-Event-ID": "nope" }));

    expect(unknown.metadata?.statusCode).toBe(404);
    expect(bad.metadata?.statusCode).toBe(422);
  });
});

describe("GET /v1/workflows/deployments/{name}/logs", () => {
  it("lists the lines of the deployment's runs, filtered by worker and workflow, and 404 for another workspace's", async () => {
    const { run } = await aReportedTask(["one", "two"]);

    const all = await invoke(deploymentLogs, deployment("pool", "logs"));
    const byWorker = await invoke(deploymentLogs, deployment("pool", "logs", { worker_name: "w2" }));
    const byWorkflow = await invoke(deploymentLogs, deployment("pool", "logs", { workflow_name: run.workflowName, worker_name: "w1" }));
    const theirs = await invoke(deploymentLogs, deployment("pool", "logs", {}, aCaller()));

    expect(all.statusCode).toBe(200);
    expect(all.json.results.map((r: { body: string; log_attributes: Record<string, string> }) => [r.body, r.log_attributes.deployment_name])).toEqual([
      ["one", "pool"],
      ["two", "pool"],
    ]);
    expect(byWorker.json.results).toEqual([]);
    expect(byWorkflow.json.results).toHaveLength(2);
    expect(theirs.statusCode).toBe(404);
  });
});

describe("GET /v1/workflows/deployments/{name}/logs/stream", () => {
  it("ends once the lines are sent when no worker of the deployment is live", async () => {
    await workflowRegistry.ensureDeployment({ id: "d2", workspace: caller.workspace, name: "quiet", createdAt: T0, updatedAt: T0, stopped: false });
    const run = aRun({ workspace: caller.workspace, deploymentName: "quiet" });
    await logStore.append([lineOf(run, { atMicros: (Date.now() - 5_000) * 1000, id: "ab", severity: "INFO", body: "last words", spanId: "0123456789abcdef", attributes: { source: "engine" } })], Math.floor(Date.now() / 1000) + 60);

    const response = await invokeStream(deploymentLogsStream, deployment("quiet", "logs/stream"));

    expect(sseFrames(response.body).map((f) => f.data.body)).toEqual(["last words"]);
  });

  it("tails the deployment's lines as `log` frames until its time is up", async () => {
    vi.stubEnv("WORKFLOW_LOG_STREAM_MAX_SECONDS", "2");
    try {
      await aReportedTask(["one", "two"]);

      const response = await invokeStream(deploymentLogsStream, deployment("pool", "logs/stream"));
      const unknown = await invokeStream(deploymentLogsStream, deployment("nobody", "logs/stream"));

      expect(sseFrames(response.body).map((f) => [f.event, f.data.body])).toEqual([
        ["log", "one"],
        ["log", "two"],
      ]);
      expect(unknown.metadata?.statusCode).toBe(404);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
