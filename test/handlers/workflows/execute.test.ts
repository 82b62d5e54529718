import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as execute } from "../../../functions/workflows/execute.js";
import { handler as executeRegistration } from "../../../functions/workflows/execute-registration.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aDefinition, seedRegistration, seedWorker } from "../../support/workflow-builders.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { eventStore } from "../../../shared/store/workflows/events.js";

const machines = vi.hoisted(() => ({ startRun: vi.fn(), stopRun: vi.fn(), describeRun: vi.fn(), completeTask: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);
const timers = vi.hoisted(() => ({ armTimer: vi.fn(), disarmTimer: vi.fn() }));
vi.mock("../../../shared/engine/timers.js", () => timers);

const dynamo = mockDynamo();
const caller = aCaller();
const NOW = freezeDate("2026-02-01T00:00:00.000Z");
let tables: FakeTables;

beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  machines.startRun.mockReset().mockImplementation(async (versionArn: string, runId: string) => versionArn.replace(":stateMachine:", ":execution:").replace(/:\d+$/, `:${runId}`));
  machines.stopRun.mockReset().mockResolvedValue(undefined);
  timers.armTimer.mockReset().mockResolvedValue(undefined);
  timers.disarmTimer.mockReset().mockResolvedValue(undefined);
});

const post = (identifier: string, body: unknown) =>
  aJsonEvent(body, { path: `/v1/workflows/${identifier}/execute`, pathParameters: { workflow_identifier: identifier }, caller });

describe("POST /v1/workflows/{workflow_identifier}/execute", () => {
  it("starts a run of the workflow's registration, named by a fresh run id, and answers the RUNNING execution", async () => {
    const registrant = { principal: "author", principalType: "user" as const, keyId: "a1b2c3d4e5f60718" };
    const { workflow, registration } = await seedRegistration(caller.workspace, { workflow: { name: "greeter" }, registration: { registeredBy: registrant } });

    const response = await invoke(execute, post("greeter", { input: { name: "Ada" }, execution_id: "order-1" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      workflow_name: "greeter",
      workflow_id: workflow.id,
      deployment_name: "default",
      execution_id: "order-1",
      parent_execution_id: null,
      root_execution_id: "order-1",
      run_id: expect.any(String),
      user_id: caller.principal,
      status: "RUNNING",
      start_time: NOW,
      end_time: null,
      total_duration_ms: null,
      // Who registered the program (decision 0042): the run's connector steps have their rights, not the caller's.
      registered_by: { principal_id: "author", principal_type: "user", registration_id: registration.id },
      result: null,
    });
    expect(await runStore.get(caller.workspace, response.json.run_id)).toMatchObject({ userId: caller.principal, registeredBy: registrant });
    expect(machines.startRun).toHaveBeenCalledExactlyOnceWith(registration.versionArn, response.json.run_id, { name: "Ada" });
    expect(timers.armTimer).not.toHaveBeenCalled();
    const execution = await runStore.getExecution(caller.workspace, "order-1");
    expect(execution).toMatchObject({ status: "RUNNING", latestRunId: response.json.run_id, deadlineMs: null });
    const [started] = await eventStore.listFrom(caller.workspace, "order-1", 0, 10);
    expect(started!.event).toMatchObject({
      event_type: "WORKFLOW_EXECUTION_STARTED",
      workflow_exec_id: "order-1",
      workflow_run_id: response.json.run_id,
      attributes: { task_id: response.json.run_id, workflow_name: "greeter", display_name: "GREETER", input: { type: "json", value: { name: "Ada" }, encoding_options: [] }, attempt: 1, registered_by: { principal_id: "author", principal_type: "user" } },
    });
  });

  it("arms the execution timeout when the definition sets one", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "timed" }, registration: { definition: aDefinition({ execution_timeout: 90 }) } });

    const response = await invoke(execute, post("timed", {}));

    expect(timers.armTimer).toHaveBeenCalledExactlyOnceWith({
      name: `timeout-${response.json.run_id}`,
      at: new Date(Date.parse(NOW) + 90_000),
      payload: { kind: "execution-timeout", workspace: caller.workspace, runId: response.json.run_id },
    });
    expect(await runStore.getExecution(caller.workspace, response.json.execution_id)).toMatchObject({ deadlineMs: Date.parse(NOW) + 90_000 });
  });

  it("refuses input its input_schema refuses with a 422 naming the failing path, starting nothing", async () => {
    await seedRegistration(caller.workspace, {
      workflow: { name: "strict" },
      registration: { definition: aDefinition({ input_schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false } }) },
    });

    const wrong = await invoke(execute, post("strict", { input: { count: "three" } }));
    const missing = await invoke(execute, post("strict", {}));

    expect(wrong.statusCode).toBe(422);
    expect(wrong.json).toEqual({ detail: [{ loc: ["body", "input", "count"], msg: "Input should be a valid integer", type: "integer_type" }], code: "WF_1001" });
    expect(missing.json.detail).toEqual([{ loc: ["body", "input", "count"], msg: "Field required", type: "missing" }]);
    expect(machines.startRun).not.toHaveBeenCalled();
    expect(tables.items("executions")).toEqual([]);
  });

  it("refuses an execution id that is running with 409 WF_1101, and takes it again once closed", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "once" } });
    const first = await invoke(execute, post("once", { execution_id: "dup" }));

    const again = await invoke(execute, post("once", { execution_id: "dup" }));
    await runStore.transition(caller.workspace, first.json.run_id, "COMPLETED", { endTime: NOW });
    const reused = await invoke(execute, post("once", { execution_id: "dup" }));

    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({ code: "WF_1101" });
    expect(reused.statusCode).toBe(200);
    expect(reused.json.run_id).not.toBe(first.json.run_id);
  });

  it("closes the run FAILED when Step Functions refuses the start, rather than leaving it RUNNING", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "broken" } });
    machines.startRun.mockRejectedValue(new Error("StateMachineDoesNotExist"));

    const response = await invoke(execute, post("broken", {}));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ status: "FAILED", end_time: NOW });
    const run = await runStore.get(caller.workspace, response.json.run_id);
    expect(run).toMatchObject({ status: "FAILED", failure: { message: "The execution could not be started; execute the workflow again" } });
  });

  describe("routing", () => {
    it("runs on the named deployment's registration, and answers 404 when it has none", async () => {
      const a = await seedRegistration(caller.workspace, { workflow: { name: "routed" }, registration: { deploymentName: "a" } });
      const b = await seedRegistration(caller.workspace, { workflow: { name: "routed" }, registration: { deploymentName: "b" } });

      const onB = await invoke(execute, post("routed", { deployment_name: "b" }));
      const viaTaskQueue = await invoke(execute, post("routed", { task_queue: "a" }));
      const nowhere = await invoke(execute, post("routed", { deployment_name: "c" }));

      expect(onB.json.deployment_name).toBe("b");
      expect(machines.startRun.mock.calls.map((c) => c[0])).toEqual([b.registration.versionArn, a.registration.versionArn]);
      expect(viaTaskQueue.json.deployment_name).toBe("a");
      expect(nowhere.statusCode).toBe(404);
      expect(nowhere.json.code).toBe("WF_1100");
    });

    it("answers 409 AMBIGUOUS_WORKFLOW with the deployments when two active ones serve it", async () => {
      await seedRegistration(caller.workspace, { workflow: { name: "twice" }, registration: { deploymentName: "blue" } });
      await seedRegistration(caller.workspace, { workflow: { name: "twice" }, registration: { deploymentName: "green" } });
      await seedWorker(caller.workspace, "blue");
      await seedWorker(caller.workspace, "green");

      const response = await invoke(execute, post("twice", {}));

      expect(response.statusCode).toBe(409);
      expect(response.json).toEqual({ detail: expect.stringContaining("2 active deployments"), code: "AMBIGUOUS_WORKFLOW", deployments: ["blue", "green"] });
      expect(machines.startRun).not.toHaveBeenCalled();
    });

    it("runs on the one active deployment, or on the newest registration when none is active", async () => {
      await seedRegistration(caller.workspace, { workflow: { name: "pick" }, registration: { deploymentName: "old", createdAt: "2026-01-01T00:00:00.000Z" } });
      await seedRegistration(caller.workspace, { workflow: { name: "pick" }, registration: { deploymentName: "new", createdAt: "2026-01-02T00:00:00.000Z" } });

      const noneActive = await invoke(execute, post("pick", {}));
      await seedWorker(caller.workspace, "old");
      const oneActive = await invoke(execute, post("pick", {}));

      expect(noneActive.json.deployment_name).toBe("new");
      expect(oneActive.json.deployment_name).toBe("old");
    });
  });

  it("waits for the result with wait_for_result and answers {workflow_name, execution_id, result}", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "quick" } });
    machines.startRun.mockImplementation(async (_arn: string, runId: string) => {
      setTimeout(() => void runStore.transition(caller.workspace, runId, "COMPLETED", { endTime: NOW, result: { greeting: "hi" } }), 30);
      return `arn:aws:states:us-east-1:000000000000:execution:x:${runId}`;
    });

    const response = await invoke(execute, post("quick", { wait_for_result: true, execution_id: "sync-1" }));

    expect(response.json).toEqual({ workflow_name: "quick", execution_id: "sync-1", result: { greeting: "hi" } });
  });

  it("answers the RUNNING execution when the result is not there by timeout_seconds", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "slow" } });

    const response = await invoke(execute, post("slow", { wait_for_result: true, timeout_seconds: 0.2 }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ status: "RUNNING", result: null, root_execution_id: expect.any(String) });
  });

  it("refuses an execution_id over 256 characters with a 422", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "ids" } });

    const response = await invoke(execute, post("ids", { execution_id: "x".repeat(257) }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["body", "execution_id"]);
  });

  it("accepts the tracing fields and extensions without acting on them", async () => {
    await seedRegistration(caller.workspace, { workflow: { name: "traced" } });

    const response = await invoke(
      execute,
      post("traced", { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", custom_tracing_attributes: { team: "a" }, force_new_trace: true, extensions: { x: 1 } }),
    );

    expect(response.statusCode).toBe(200);
  });
});

describe("POST /v1/workflows/registrations/{workflow_registration_id}/execute", () => {
  const post = (id: string, body: unknown) =>
    aJsonEvent(body, { path: `/v1/workflows/registrations/${id}/execute`, pathParameters: { workflow_registration_id: id }, caller });

  it("runs exactly that registration, whatever is active", async () => {
    const pinned = await seedRegistration(caller.workspace, { workflow: { name: "pinned" }, registration: { deploymentName: "old" } });
    await seedRegistration(caller.workspace, { workflow: { name: "pinned" }, registration: { deploymentName: "new" } });
    await seedWorker(caller.workspace, "new");

    const response = await invoke(executeRegistration, post(pinned.registration.id, { input: { name: "x" } }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ deployment_name: "old", workflow_name: "pinned", status: "RUNNING" });
    expect(machines.startRun).toHaveBeenCalledExactlyOnceWith(pinned.registration.versionArn, response.json.run_id, { name: "x" });
  });

  it("answers 404 for a registration that is not the workspace's", async () => {
    const theirs = await seedRegistration(randomUUID());

    const response = await invoke(executeRegistration, post(theirs.registration.id, {}));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("WF_1100");
  });
});
