/**
 * The lifecycle in the engine's handlers, with Step Functions and the timer port mocked: the status handler
 * continuing a run as new, moving a failed run to RETRYING_AFTER_ERROR, reporting a child's end to its
 * parent; the timer handler starting the retry and stopping a closed parent's children; the dispatcher's
 * continue_as_new and child_workflow built-ins.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as dispatcher } from "../../../functions/engine/workflow-dispatch.js";
import { handler as status } from "../../../functions/engine/workflow-status.js";
import { handler as timer } from "../../../functions/engine/workflow-timer.js";
import { handler as cancel } from "../../../functions/workflows/cancel.js";
import type { RunRecord } from "../../../shared/domain/workflows/records.js";
import { eventStore } from "../../../shared/store/workflows/events.js";
import { childStore } from "../../../shared/store/workflows/run-chain.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aContext, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aDefinition, seedRegistration, seedRun, type Seeded } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ startRun: vi.fn(), stopRun: vi.fn(), describeRun: vi.fn(), completeTask: vi.fn(), failTask: vi.fn(), dispatcherArn: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);
const timers = vi.hoisted(() => ({ armTimer: vi.fn(), disarmTimer: vi.fn() }));
vi.mock("../../../shared/engine/timers.js", () => timers);

const dynamo = mockDynamo();
const caller = aCaller();
freezeDate("2026-02-01T00:00:00.000Z");

beforeEach(() => {
  serveTables(dynamo, {}, { writes: true });
  for (const fn of Object.values(machines)) fn.mockReset();
  machines.startRun.mockImplementation(async (_version: string, runId: string) => `arn:aws:states:us-east-1:000000000000:execution:wf:${runId}`);
  machines.completeTask.mockResolvedValue(true);
  machines.failTask.mockResolvedValue(true);
  machines.stopRun.mockResolvedValue(undefined);
  timers.armTimer.mockReset().mockResolvedValue(undefined);
  timers.disarmTimer.mockReset().mockResolvedValue(undefined);
});

const change = (run: RunRecord, detail: Record<string, unknown>) =>
  status({ detail: { executionArn: run.executionArn, name: run.runId, stopDate: Date.now(), output: null, error: null, cause: null, ...detail } } as never, aContext());
const dispatch = (run: RunRecord, state: string, resource: string, input: unknown) =>
  dispatcher({ token: `token-${state}`, execution: run.executionArn, state, resource, input } as never, aContext());
const eventsOf = async (run: RunRecord) => (await eventStore.listFrom(run.workspace, run.rootExecutionId, 0, 100)).map((e) => e.event);
const latestOf = async (run: RunRecord) => runStore.get(run.workspace, (await runStore.getExecution(run.workspace, run.executionId))!.latestRunId);

describe("platform:continue_as_new (dispatcher and status handler)", () => {
  it("records the next input, and on success closes the run CONTINUED_AS_NEW and starts the next run of the execution", async () => {
    const seeded = await seedRegistration(caller.workspace);
    const run = await seedRun(caller.workspace, { traceId: "t".repeat(32) }, seeded);

    await dispatch(run, "Again", "platform:continue_as_new", { name: "next" });
    await change(run, { status: "SUCCEEDED", output: '{"ignored":true}' });

    expect(machines.completeTask).toHaveBeenCalledWith("token-Again", { name: "next" });
    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "CONTINUED_AS_NEW", result: null });
    const next = (await latestOf(run))!;
    expect(next).toMatchObject({ status: "RUNNING", input: { name: "next" }, continuedRunId: run.runId, firstExecutionRunId: run.firstExecutionRunId, attempt: 1, traceId: "t".repeat(32) });
    expect(machines.startRun).toHaveBeenCalledWith(seeded.registration.versionArn, next.runId, { name: "next" });
    const events = await eventsOf(run);
    expect(events.map((e) => e.event_type)).toEqual(["WORKFLOW_EXECUTION_CONTINUED_AS_NEW", "WORKFLOW_EXECUTION_STARTED"]);
    expect(events[0]!.attributes).toMatchObject({ new_execution_run_id: next.runId, input: { value: { name: "next" } } });
    expect(events[1]).toMatchObject({ workflow_run_id: next.runId, continued_run_id: run.runId });
  });

  it("refuses a next input that breaks the input_schema with Workflow.InvalidInput, recording nothing", async () => {
    const run = await seedRun(caller.workspace, {}, await seedRegistration(caller.workspace));

    await dispatch(run, "Again", "platform:continue_as_new", { name: 42 });

    expect(machines.failTask).toHaveBeenCalledWith("token-Again", "Workflow.InvalidInput", expect.stringContaining("input_schema"));
    expect((await runStore.get(caller.workspace, run.runId))!.continueAsNew).toBeUndefined();
  });
});

describe("workflow-level retries (status handler and timer handler)", () => {
  const withPolicy = (policy: Record<string, unknown>): Promise<Seeded> => seedRegistration(caller.workspace, { registration: { definition: aDefinition({ retry_policy: policy as never }) } });

  it("moves a failed run with attempts left to RETRYING_AFTER_ERROR and arms the retry after the backoff", async () => {
    const run = await seedRun(caller.workspace, { attempt: 2 }, await withPolicy({ maximum_attempts: 3, initial_interval_seconds: 5, backoff_coefficient: 3 }));

    await change(run, { status: "FAILED", error: "Boom", cause: "it broke" });

    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "RETRYING_AFTER_ERROR", failure: { message: "it broke", type: "Boom" }, endTime: null });
    expect(await runStore.getExecution(caller.workspace, run.executionId)).toMatchObject({ status: "RETRYING_AFTER_ERROR" });
    expect(timers.armTimer).toHaveBeenCalledWith({ name: `retry-${run.runId}`, at: new Date(Date.now() + 15_000), payload: { kind: "workflow-retry", workspace: caller.workspace, runId: run.runId } });
    expect((await eventsOf(run)).map((e) => [e.event_type, e.attributes.attempt])).toEqual([["WORKFLOW_EXECUTION_FAILED", 2]]);
  });

  it("fails for good without attempts left, on a non-retryable type, or without a policy", async () => {
    const last = await seedRun(caller.workspace, { attempt: 3 }, await withPolicy({ maximum_attempts: 3 }));
    const fatal = await seedRun(caller.workspace, {}, await withPolicy({ maximum_attempts: 3, non_retryable_error_types: ["Fatal"] }));
    const none = await seedRun(caller.workspace, {}, await seedRegistration(caller.workspace));

    await change(last, { status: "FAILED", error: "Boom" });
    await change(fatal, { status: "FAILED", error: "Fatal" });
    await change(none, { status: "FAILED", error: "Boom" });

    for (const run of [last, fatal, none]) expect((await runStore.get(caller.workspace, run.runId))!.status).toBe("FAILED");
    expect(timers.armTimer).not.toHaveBeenCalled();
  });

  it("starts attempt + 1 with the same input when the retry timer fires, and closes the failed run FAILED", async () => {
    const run = await seedRun(caller.workspace, { input: { name: "again" } }, await withPolicy({ maximum_attempts: 3, initial_interval_seconds: 1 }));
    await change(run, { status: "FAILED", error: "Boom" });

    await timer({ kind: "workflow-retry", workspace: caller.workspace, runId: run.runId } as never, aContext());
    await timer({ kind: "workflow-retry", workspace: caller.workspace, runId: run.runId } as never, aContext());

    expect(await runStore.get(caller.workspace, run.runId)).toMatchObject({ status: "FAILED", endTime: expect.any(String) });
    const next = (await latestOf(run))!;
    expect(next).toMatchObject({ status: "RUNNING", attempt: 2, input: { name: "again" }, continuedRunId: null, firstExecutionRunId: run.firstExecutionRunId });
    expect(machines.startRun).toHaveBeenCalledTimes(1);
    expect((await runStore.getExecution(caller.workspace, run.executionId))!.status).toBe("RUNNING");
  });
});

describe("POST /v1/workflows/executions/{execution_id}/cancel of an execution waiting for its retry", () => {
  it("closes the waiting run CANCELED at once and disarms the retry", async () => {
    const run = await seedRun(caller.workspace, {}, await seedRegistration(caller.workspace, { registration: { definition: aDefinition({ retry_policy: { maximum_attempts: 2, initial_interval_seconds: 600 } as never }) } }));
    await change(run, { status: "FAILED", error: "Boom" });

    const response = await invoke(cancel, anEvent({ method: "POST", path: `/v1/workflows/executions/${run.executionId}/cancel`, resource: "/v1/workflows/executions/{execution_id}/cancel", pathParameters: { execution_id: run.executionId }, caller }));

    expect(response.statusCode).toBe(204);
    expect(await runStore.getExecution(caller.workspace, run.executionId)).toMatchObject({ status: "CANCELED" });
    expect(timers.disarmTimer).toHaveBeenCalledWith(`retry-${run.runId}`);
    expect(machines.stopRun).not.toHaveBeenCalled();
    expect((await eventsOf(run)).map((e) => e.event_type)).toEqual(["WORKFLOW_EXECUTION_FAILED", "WORKFLOW_EXECUTION_CANCELED"]);
  });
});

describe("platform:child_workflow (dispatcher, status handler, timer handler)", () => {
  it("starts the child with parent and root ids and the parent's token, and completes that token with the child's result", async () => {
    const child = await seedRegistration(caller.workspace, { workflow: { name: "kid" } });
    const parent = await seedRun(caller.workspace, { executionId: "mom", rootExecutionId: "grandma", traceId: "a".repeat(32) }, await seedRegistration(caller.workspace));

    await dispatch(parent, "Kid", "platform:child_workflow", { workflow: "kid", input: { name: "x" }, execution_id: "kid-1" });
    const kid = (await runStore.get(caller.workspace, (await runStore.getExecution(caller.workspace, "kid-1"))!.latestRunId))!;
    await change(kid, { status: "SUCCEEDED", output: '{"done":1}' });

    expect(kid).toMatchObject({ workflowId: child.workflow.id, parentExecutionId: "mom", rootExecutionId: "grandma", input: { name: "x" }, traceId: "a".repeat(32), parentTask: { runId: parent.runId, token: "token-Kid" } });
    expect(machines.completeTask).toHaveBeenCalledWith("token-Kid", { done: 1 });
    expect(await childStore.list(caller.workspace, parent.runId)).toEqual(["kid-1"]);
  });

  it("fails the parent's token with Workflow.ChildFailed and a JSON cause when the child fails; refuses an unknown workflow", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "kid2" } });
    const parent = await seedRun(caller.workspace, {}, await seedRegistration(caller.workspace));

    await dispatch(parent, "Kid", "platform:child_workflow", { workflow: "kid2", execution_id: "kid-2" });
    await change((await runStore.get(caller.workspace, (await runStore.getExecution(caller.workspace, "kid-2"))!.latestRunId))!, { status: "FAILED", error: "E", cause: "no" });
    await dispatch(parent, "Ghost", "platform:child_workflow", { workflow: "ghost" });

    expect(machines.failTask).toHaveBeenCalledWith("token-Kid", "Workflow.ChildFailed", expect.any(String));
    expect(JSON.parse(machines.failTask.mock.calls[0]![2])).toMatchObject({ execution_id: "kid-2", status: "FAILED", failure: { message: "no", type: "E" } });
    expect(machines.failTask).toHaveBeenCalledWith("token-Ghost", "Workflow.ChildNotStarted", expect.stringContaining("ghost"));
  });

  it("re-binds the running child to the new token when the same Task is dispatched again (a Lambda retry, a restart)", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "kid4" } });
    const parent = await seedRun(caller.workspace, {}, await seedRegistration(caller.workspace));

    await dispatch(parent, "Kid", "platform:child_workflow", { workflow: "kid4" });
    await dispatcher({ token: "token-again", execution: parent.executionArn, state: "Kid", resource: "platform:child_workflow", input: { workflow: "kid4" } } as never, aContext());

    const kid = (await runStore.get(caller.workspace, (await runStore.getExecution(caller.workspace, `${parent.runId}-Kid`))!.latestRunId))!;
    expect(kid.parentTask).toMatchObject({ token: "token-again" });
    expect(machines.startRun).toHaveBeenCalledTimes(1);
    expect(machines.failTask).not.toHaveBeenCalled();
  });

  it("stops a closed parent's open children when its timer fires: terminated, or canceled when the parent was", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "kid3" } });
    const parent = await seedRun(caller.workspace, {}, await seedRegistration(caller.workspace));
    await dispatch(parent, "Kid", "platform:child_workflow", { workflow: "kid3", execution_id: "kid-3" });

    await change(parent, { status: "FAILED", error: "E" });
    const armed = timers.armTimer.mock.calls.map((c) => c[0]).find((t) => t.name === `children-${parent.runId}`);
    await timer(armed.payload, aContext());

    expect(armed.payload).toEqual({ kind: "stop-children", workspace: caller.workspace, runId: parent.runId, how: "terminate" });
    expect((await runStore.getExecution(caller.workspace, "kid-3"))!.status).toBe("TERMINATED");
    expect(machines.stopRun).toHaveBeenCalledTimes(1);
  });
});
