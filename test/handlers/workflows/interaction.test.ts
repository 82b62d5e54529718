import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as executionHistory } from "../../../functions/workflows/execution-history.js";
import { handler as query } from "../../../functions/workflows/query.js";
import { handler as reset } from "../../../functions/workflows/reset.js";
import { handler as runHistory } from "../../../functions/workflows/run-history.js";
import { handler as signal } from "../../../functions/workflows/signal.js";
import { handler as update } from "../../../functions/workflows/update-execution.js";
import { inboxStore } from "../../../shared/store/workflows/inbox.js";
import { publishedStateStore } from "../../../shared/store/workflows/published-state.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aDefinition, seedEvents, seedRegistration, seedRun, type Seeded } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ startRun: vi.fn(), stopRun: vi.fn(), describeRun: vi.fn(), completeTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);
const timers = vi.hoisted(() => ({ armTimer: vi.fn(), disarmTimer: vi.fn() }));
vi.mock("../../../shared/engine/timers.js", () => timers);

const dynamo = mockDynamo();
const caller = aCaller();
let seeded: Seeded;

const DEFINITION = aDefinition({
  signals: [{ name: "approve", input_schema: { type: "object", properties: { by: { type: "string" } }, required: ["by"] } }],
  queries: [{ name: "approver", input_schema: {}, projection: "$.approval.by" }],
  updates: [{ name: "double", input_schema: { type: "object", properties: { n: { type: "integer" } } } }],
});

beforeEach(async () => {
  serveTables(dynamo, {}, { writes: true });
  for (const fn of Object.values(machines)) fn.mockReset().mockResolvedValue(undefined);
  machines.completeTask.mockResolvedValue(true);
  machines.startRun.mockImplementation(async (versionArn: string, runId: string) => `${versionArn.replace(":stateMachine:", ":execution:")}:${runId}`);
  timers.armTimer.mockReset().mockResolvedValue(undefined);
  timers.disarmTimer.mockReset().mockResolvedValue(undefined);
  seeded = await seedRegistration(caller.workspace, { registration: { definition: DEFINITION } });
});

const post = (what: string, id: string, body: unknown) =>
  aJsonEvent(body, { path: `/v1/workflows/executions/${id}/${what}`, resource: `/v1/workflows/executions/{execution_id}/${what}`, pathParameters: { execution_id: id }, caller });
const aWaiter = (runId: string, executionId: string, kind: "signal" | "update", name: string | null) =>
  inboxStore.putWaiter({ workspace: caller.workspace, executionId, runId, state: "Wait", kind, name, token: `token-${randomUUID()}`, atMs: Date.now() });

describe("POST /v1/workflows/executions/{execution_id}/signals", () => {
  it("accepts a declared signal into the inbox (202) and hands it to the Task waiting for it", async () => {
    const run = await seedRun(caller.workspace, { executionId: "s-1" }, seeded);
    await aWaiter(run.runId, "s-1", "signal", "approve");

    const first = await invoke(signal, post("signals", "s-1", { name: "approve", input: { by: "ada" } }));
    const second = await invoke(signal, post("signals", "s-1", { name: "approve", input: { by: "bob" } }));

    expect(first.statusCode).toBe(202);
    expect(first.json).toEqual({ message: "Signal accepted" });
    expect(second.statusCode).toBe(202);
    expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(expect.stringMatching(/^token-/), { by: "ada" });
    const messages = await inboxStore.messages(caller.workspace, "s-1");
    expect(messages.map((m) => [m.seq, m.status, m.input])).toEqual([
      [1, "DELIVERED", { by: "ada" }],
      [2, "PENDING", { by: "bob" }],
    ]);
  });

  it("answers 422 for an undeclared signal or a refused input, 409 WF_1102 for a closed execution, 404 for an unknown one", async () => {
    await seedRun(caller.workspace, { executionId: "s-2" }, seeded);
    await seedRun(caller.workspace, { executionId: "s-3", status: "COMPLETED" }, seeded);

    const undeclared = await invoke(signal, post("signals", "s-2", { name: "reject" }));
    const refused = await invoke(signal, post("signals", "s-2", { name: "approve", input: {} }));
    const closed = await invoke(signal, post("signals", "s-3", { name: "approve", input: { by: "x" } }));
    const unknown = await invoke(signal, post("signals", "nope", { name: "approve", input: { by: "x" } }));

    expect(undeclared.statusCode).toBe(422);
    expect(undeclared.json).toEqual({ code: "WF_1001", detail: [{ loc: ["body", "name"], msg: "The workflow declares no signal 'reject' (declared: approve)", type: "value_error" }] });
    expect(refused.json).toEqual({ code: "WF_1001", detail: [{ loc: ["body", "input", "by"], msg: "Field required", type: "missing" }] });
    expect(closed.statusCode).toBe(409);
    expect(closed.json).toMatchObject({ code: "WF_1102", status: "COMPLETED" });
    expect(unknown.statusCode).toBe(404);
    expect(await inboxStore.messages(caller.workspace, "s-2")).toEqual([]);
  });
});

describe("POST /v1/workflows/executions/{execution_id}/queries", () => {
  it("answers a declared projection, __state and __status from the published state", async () => {
    const run = await seedRun(caller.workspace, { executionId: "q-1", checkpoint: { state: "Wait", input: {} } }, seeded);
    await publishedStateStore.put({ workspace: caller.workspace, runId: run.runId, state: { approval: { by: "ada" } }, publishedAtMs: Date.parse("2026-01-01T00:00:05.000Z") });
    await aWaiter(run.runId, "q-1", "signal", "approve");

    const approver = await invoke(query, post("queries", "q-1", { name: "approver" }));
    const state = await invoke(query, post("queries", "q-1", { name: "__state" }));
    const status = await invoke(query, post("queries", "q-1", { name: "__status" }));
    const undeclared = await invoke(query, post("queries", "q-1", { name: "other" }));

    expect(approver.json).toEqual({ query_name: "approver", result: "ada" });
    expect(state.json).toEqual({ query_name: "__state", result: { approval: { by: "ada" } } });
    expect(status.json).toEqual({
      query_name: "__status",
      result: {
        status: "RUNNING",
        execution_id: "q-1",
        run_id: run.runId,
        current_state: "Wait",
        waiting_for: [{ kind: "signal", name: "approve", state: "Wait" }],
        pending_signals: 0,
        pending_updates: 0,
        state_published_at: "2026-01-01T00:00:05.000Z",
      },
    });
    expect(undeclared.statusCode).toBe(422);
  });

  it("answers 409 WF_1102 on a closed run", async () => {
    await seedRun(caller.workspace, { executionId: "q-2", status: "FAILED" }, seeded);

    const answer = await invoke(query, post("queries", "q-2", { name: "__state" }));

    expect(answer.statusCode).toBe(409);
    expect(answer.json).toMatchObject({ code: "WF_1102", status: "FAILED" });
  });
});

describe("POST /v1/workflows/executions/{execution_id}/updates", () => {
  it("answers with the result the program completes the update with", async () => {
    const run = await seedRun(caller.workspace, { executionId: "u-1" }, seeded);
    await aWaiter(run.runId, "u-1", "update", null);
    // The program: takes the update, answers it.
    machines.completeTask.mockImplementation(async (_token: string, output: { update_id: string; input: { n: number } }) => {
      const message = (await inboxStore.getUpdate(caller.workspace, "u-1", output.update_id))!;
      setTimeout(() => void inboxStore.move(caller.workspace, "u-1", message.seq, "DELIVERED", "COMPLETED", { result: { doubled: output.input.n * 2 }, error: null, completedAtMs: Date.now() }), 30);
      return true;
    });

    const answer = await invoke(update, post("updates", "u-1", { name: "double", input: { n: 21 } }));

    expect(answer.statusCode).toBe(200);
    expect(answer.json).toEqual({ update_name: "double", result: { doubled: 42 } });
  });

  it("answers 504 WF_1103 when nothing takes the update by the deadline, and withdraws it", async () => {
    await seedRun(caller.workspace, { executionId: "u-2" }, seeded);
    vi.stubEnv("WORKFLOW_UPDATE_TIMEOUT_SECONDS", "0.2");
    try {
      const answer = await invoke(update, post("updates", "u-2", { name: "double", input: { n: 1 } }));

      expect(answer.statusCode).toBe(504);
      expect(answer.json).toEqual({ code: "WF_1103", detail: "The workflow did not take update 'double' within 0.2 s (it is not waiting for updates); the update was withdrawn", update_id: expect.any(String) });
      expect((await inboxStore.messages(caller.workspace, "u-2")).map((m) => m.status)).toEqual(["EXPIRED"]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("answers 422 for an update the workflow does not declare", async () => {
    await seedRun(caller.workspace, { executionId: "u-3" }, seeded);

    const answer = await invoke(update, post("updates", "u-3", { name: "triple" }));

    expect(answer.statusCode).toBe(422);
    expect(answer.json.detail[0].msg).toBe("The workflow declares no update 'triple' (declared: double)");
  });
});

const historyEvent = (path: string, resource: string, pathParameters: Record<string, string>, query: Record<string, string> = {}) => anEvent({ path, resource, pathParameters, query, caller });

describe("GET /v1/workflows/executions/{execution_id}/history", () => {
  it("merges the run's events, steps and inbox in time order, payloads encoded by default", async () => {
    const run = await seedRun(caller.workspace, { executionId: "h-1", input: { x: 1 }, startTime: "2026-01-01T00:00:00.000Z" }, seeded);
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"], Date.parse(run.startTime));
    await inboxStore.addStep({ workspace: caller.workspace, runId: run.runId, id: "s1", state: "Wait", input: { x: 1 }, atMs: Date.parse(run.startTime) + 10 });
    await inboxStore.append({ workspace: caller.workspace, executionId: "h-1", kind: "signal", id: "sig", name: "approve", input: { by: "ada" }, status: "PENDING", receivedAtMs: Date.parse(run.startTime) + 20, runId: run.runId });

    const encoded = await invoke(executionHistory, historyEvent("/v1/workflows/executions/h-1/history", "/v1/workflows/executions/{execution_id}/history", { execution_id: "h-1" }));
    const decoded = await invoke(executionHistory, historyEvent("/v1/workflows/executions/h-1/history", "/v1/workflows/executions/{execution_id}/history", { execution_id: "h-1" }, { decode_payloads: "true" }));

    expect(encoded.statusCode).toBe(200);
    expect(encoded.json.events.map((e: { eventId: string; eventType: string }) => `${e.eventId} ${e.eventType}`)).toEqual([
      "1 EVENT_TYPE_WORKFLOW_EXECUTION_STARTED",
      "2 EVENT_TYPE_WORKFLOW_TASK_COMPLETED",
      "3 EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED",
    ]);
    expect(encoded.json.events[1]).toEqual({
      eventId: "2",
      eventTime: "2026-01-01T00:00:00.010Z",
      eventType: "EVENT_TYPE_WORKFLOW_TASK_COMPLETED",
      workflowTaskCompletedEventAttributes: { state_name: "Wait", input: { metadata: { encoding: "anNvbi9wbGFpbg==" }, data: Buffer.from('{"x":1}').toString("base64") } },
    });
    expect(decoded.json.events[2].workflowExecutionSignaledEventAttributes).toEqual({ signal_name: "approve", inbox_sequence: 1, input: { by: "ada" } });
  });
});

describe("GET /v1/workflows/runs/{run_id}/history", () => {
  it("answers a run's history, caches it once the run is settled, and 404s an unknown run", async () => {
    const run = await seedRun(caller.workspace, { executionId: "h-2", status: "COMPLETED", result: { ok: 1 }, startTime: "2026-01-01T00:00:00.000Z" }, seeded);
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
    const path = `/v1/workflows/runs/${run.runId}/history`;

    const first = await invoke(runHistory, historyEvent(path, "/v1/workflows/runs/{run_id}/history", { run_id: run.runId }, { decode_payloads: "true" }));
    await seedEvents(run, ["ACTIVITY_TASK_STARTED"]);
    const again = await invoke(runHistory, historyEvent(path, "/v1/workflows/runs/{run_id}/history", { run_id: run.runId }, { decode_payloads: "true" }));
    const unknown = await invoke(runHistory, historyEvent(`/v1/workflows/runs/${randomUUID()}/history`, "/v1/workflows/runs/{run_id}/history", { run_id: randomUUID() }));

    expect(first.json.events.map((e: { eventType: string }) => e.eventType)).toEqual(["EVENT_TYPE_WORKFLOW_EXECUTION_STARTED", "EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED"]);
    expect(first.json.events[1].workflowExecutionCompletedEventAttributes).toMatchObject({ result: { ok: 1 } });
    expect(again.json).toEqual(first.json);
    expect(unknown.statusCode).toBe(404);
  });
});

describe("GET /v1/workflows/runs/{run_id}/history of a run closed a moment ago", () => {
  it.each([
    ["just now", 0, "h-3"],
    ["8 s ago, past the cache's settling time (a loaded machine)", 8_000, "h-4"],
  ])("waits for the closing event of a run closed %s, which the closer writes just after it moves the run", async (_when, closedMsAgo, executionId) => {
    const run = await seedRun(caller.workspace, { executionId, status: "COMPLETED", result: { ok: 2 }, endTime: new Date(Date.now() - closedMsAgo).toISOString() }, seeded);
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);
    const path = `/v1/workflows/runs/${run.runId}/history`;

    const reading = invoke(runHistory, historyEvent(path, "/v1/workflows/runs/{run_id}/history", { run_id: run.runId }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await seedEvents(run, ["WORKFLOW_EXECUTION_COMPLETED"], Date.parse(run.startTime) + 1);
    const answer = await reading;

    expect(answer.json.events.map((e: { eventType: string }) => e.eventType)).toEqual(["EVENT_TYPE_WORKFLOW_EXECUTION_STARTED", "EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED"]);
  });

  it("serves a run whose closer died between its writes without the event at once, and does not cache it", async () => {
    const run = await seedRun(caller.workspace, { executionId: "h-5", status: "COMPLETED", result: { ok: 4 }, endTime: new Date(Date.now() - 60_000).toISOString() }, seeded);
    await seedEvents(run, ["WORKFLOW_EXECUTION_STARTED"]);
    const path = `/v1/workflows/runs/${run.runId}/history`;

    const began = Date.now();
    const first = await invoke(runHistory, historyEvent(path, "/v1/workflows/runs/{run_id}/history", { run_id: run.runId }));
    const waited = Date.now() - began;
    await seedEvents(run, ["WORKFLOW_EXECUTION_COMPLETED"], Date.parse(run.startTime) + 1);
    const later = await invoke(runHistory, historyEvent(path, "/v1/workflows/runs/{run_id}/history", { run_id: run.runId }));

    expect(first.json.events.map((e: { eventType: string }) => e.eventType)).toEqual(["EVENT_TYPE_WORKFLOW_EXECUTION_STARTED"]);
    expect(waited).toBeLessThan(5_000);
    expect(later.json.events.map((e: { eventType: string }) => e.eventType)).toEqual(["EVENT_TYPE_WORKFLOW_EXECUTION_STARTED", "EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED"]);
  });
});

describe("POST /v1/workflows/executions/{execution_id}/reset", () => {
  it("terminates the open run and starts a new one at the chosen state; signals taken since then go back to the inbox", async () => {
    const run = await seedRun(caller.workspace, { executionId: "r-1", startTime: new Date(Date.now() - 10_000).toISOString() }, seeded);
    const at = Date.now() - 5_000;
    await inboxStore.addStep({ workspace: caller.workspace, runId: run.runId, id: "s1", state: "Wait", input: { x: 1 }, atMs: at });
    const taken = await inboxStore.append({ workspace: caller.workspace, executionId: "r-1", kind: "signal", id: "sig", name: "approve", input: { by: "ada" }, status: "PENDING", receivedAtMs: at + 1, runId: run.runId });
    await inboxStore.move(caller.workspace, "r-1", taken.seq, "PENDING", "DELIVERED", { deliveredRunId: run.runId, deliveredAtMs: at + 2 });

    const invalid = await invoke(reset, post("reset", "r-1", { event_id: 2 }));
    const answer = await invoke(reset, post("reset", "r-1", { event_id: 1, reason: "try again" }));

    expect(invalid.statusCode).toBe(422);
    expect(invalid.json).toMatchObject({ code: "WF_1001", valid_reset_events: [1] });
    expect(answer.statusCode).toBe(204);
    expect(machines.stopRun).toHaveBeenCalledWith(run.executionArn, "Workflow.Reset", "try again");
    expect((await runStore.get(caller.workspace, run.runId))?.status).toBe("TERMINATED");
    const execution = await runStore.getExecution(caller.workspace, "r-1");
    expect(execution).toMatchObject({ status: "RUNNING" });
    expect(execution!.latestRunId).not.toBe(run.runId);
    expect(machines.startRun).toHaveBeenCalledWith(seeded.registration.versionArn, execution!.latestRunId, { __resume: { state: "Wait", input: { x: 1 } } });
    expect((await inboxStore.messages(caller.workspace, "r-1")).map((m) => m.status)).toEqual(["PENDING"]);
  });
});
