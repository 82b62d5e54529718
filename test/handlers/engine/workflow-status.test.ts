import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/engine/workflow-status.js";
import type { RunRecord } from "../../../shared/domain/workflows/records.js";
import { eventStore } from "../../../shared/store/workflows/events.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aContext } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aDefinition, seedRegistration, seedRun } from "../../support/workflow-builders.js";

const timers = vi.hoisted(() => ({ armTimer: vi.fn(), disarmTimer: vi.fn() }));
vi.mock("../../../shared/engine/timers.js", () => timers);

const dynamo = mockDynamo();
const caller = aCaller();
freezeDate("2026-02-01T00:00:00.000Z");
const STOP = Date.parse("2026-01-31T23:59:59.000Z");

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
  timers.disarmTimer.mockReset().mockResolvedValue(undefined);
});

const change = (run: RunRecord, detail: Record<string, unknown>) =>
  handler({ detail: { executionArn: run.executionArn, name: run.runId, stopDate: STOP, output: null, error: null, cause: null, ...detail } } as never, aContext());
const types = async (run: RunRecord) => (await eventStore.listFrom(run.workspace, run.rootExecutionId, 0, 10)).map((e) => e.event);

describe("workflow status handler", () => {
  it("closes a SUCCEEDED run COMPLETED with its output as result, disarms its timers and writes the event", async () => {
    const run = await seedRun(caller.workspace);

    await change(run, { status: "SUCCEEDED", output: '{"answer":42}' });

    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "COMPLETED", result: { answer: 42 }, endTime: new Date(STOP).toISOString() });
    expect(await runStore.getExecution(caller.workspace, run.executionId)).toMatchObject({ status: "COMPLETED", result: { answer: 42 } });
    expect(timers.disarmTimer.mock.calls.map((c) => c[0])).toEqual([`timeout-${run.runId}`, `cancel-${run.runId}`]);
    expect(await types(run)).toEqual([expect.objectContaining({ event_type: "WORKFLOW_EXECUTION_COMPLETED", attributes: { task_id: run.runId, result: { type: "json", value: { answer: 42 }, encoding_options: [] }, attempt: 1 } })]);
  });

  it("fails a result that breaks the registration's output_schema, saying why", async () => {
    const seeded = await seedRegistration(caller.workspace, { registration: { definition: aDefinition({ output_schema: { type: "object", required: ["answer"] } }) } });
    const run = await seedRun(caller.workspace, {}, seeded);

    await change(run, { status: "SUCCEEDED", output: '{"other":1}' });

    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "FAILED", failure: { message: expect.stringContaining("does not match its output_schema: result.answer: Field required") } });
  });

  it("closes a FAILED run with the cause as message, keeping only a Lambda error's message", async () => {
    const plain = await seedRun(caller.workspace);
    const lambda = await seedRun(caller.workspace);

    await change(plain, { status: "FAILED", error: "Order.Invalid", cause: "the order has no lines" });
    await change(lambda, { status: "FAILED", error: "TypeError", cause: JSON.stringify({ errorType: "TypeError", errorMessage: "x is undefined", trace: ["at secret.js:1"] }) });

    expect((await runStore.get(caller.workspace, plain.runId))!.failure).toEqual({ message: "the order has no lines", type: "Order.Invalid" });
    expect((await runStore.get(caller.workspace, lambda.runId))!.failure).toEqual({ message: "x is undefined", type: "TypeError" });
    expect((await types(plain))[0]).toMatchObject({ event_type: "WORKFLOW_EXECUTION_FAILED", attributes: { failure: { message: "the order has no lines" } } });
  });

  it("reads ABORTED by the run's intent: cancel → CANCELED (with its event), none → TERMINATED", async () => {
    const canceled = await seedRun(caller.workspace);
    await runStore.setIntent(caller.workspace, canceled.runId, { intent: "cancel", cancelRequested: true });
    const stopped = await seedRun(caller.workspace);

    await change(canceled, { status: "ABORTED" });
    await change(stopped, { status: "ABORTED" });

    expect((await runStore.get(caller.workspace, canceled.runId))!.status).toBe("CANCELED");
    expect((await types(canceled)).map((e) => e.event_type)).toEqual(["WORKFLOW_EXECUTION_CANCELED"]);
    expect((await runStore.get(caller.workspace, stopped.runId))!.status).toBe("TERMINATED");
    expect(await types(stopped)).toEqual([]);
  });

  it("reads FAILED after a cancel was asked as CANCELED: the activity stopped on cancel_requested, its Task failed", async () => {
    const run = await seedRun(caller.workspace);
    await runStore.setIntent(caller.workspace, run.runId, { intent: "cancel", cancelRequested: true });

    await change(run, { status: "FAILED", error: "Cancelled", cause: "Cancelled" });

    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "CANCELED", failure: null, endTime: new Date(STOP).toISOString() });
    expect(await runStore.getExecution(caller.workspace, run.executionId)).toMatchObject({ status: "CANCELED" });
    expect(timers.disarmTimer.mock.calls.map((c) => c[0])).toContain(`cancel-${run.runId}`);
    expect(await types(run)).toEqual([expect.objectContaining({ event_type: "WORKFLOW_EXECUTION_CANCELED", attributes: expect.objectContaining({ reason: "Canceled through the API" }) })]);
  });

  it("maps TIMED_OUT, and leaves a run someone closed first as it is (no second event)", async () => {
    const timedOut = await seedRun(caller.workspace);
    const terminated = await seedRun(caller.workspace, { status: "TERMINATED" });

    await change(timedOut, { status: "TIMED_OUT" });
    await change(terminated, { status: "SUCCEEDED", output: "1" });

    expect((await runStore.get(caller.workspace, timedOut.runId))!.status).toBe("TIMED_OUT");
    expect(await runStore.get(caller.workspace, terminated.runId)).toMatchObject({ status: "TERMINATED", result: null });
    expect(await types(terminated)).toEqual([]);
  });

  it("ignores RUNNING and runs it does not know", async () => {
    const run = await seedRun(caller.workspace);

    await change(run, { status: "RUNNING" });
    await change({ ...run, runId: "00000000-0000-4000-8000-000000000000" }, { status: "SUCCEEDED" });

    expect((await runStore.get(caller.workspace, run.runId))!.status).toBe("RUNNING");
  });
});
