import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/engine/workflow-dispatch.js";
import { UpstreamError } from "../../../shared/domain/errors.js";
import type { DispatchEvent } from "../../../shared/domain/workflows/program/index.js";
import type { RunRecord } from "../../../shared/domain/workflows/records.js";
import { publishedStateStore } from "../../../shared/store/workflows/published-state.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { inputHashOf, taskStore, type StoredTask } from "../../../shared/store/workflows/tasks.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aContext } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { ACTIVITY_PROGRAM, aRegistration, aRun, aTask, aWorkflow } from "../../support/workflow-builders.js";

const machines = vi.hoisted(() => ({ completeTask: vi.fn(), failTask: vi.fn(), describeRun: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);
const timers = vi.hoisted(() => ({ armTimer: vi.fn() }));
vi.mock("../../../shared/engine/timers.js", () => timers);
const models = vi.hoisted(() => ({ chat: vi.fn(), embed: vi.fn() }));
vi.mock("../../../shared/services/inference/completions.js", () => ({ chat: models.chat }));
vi.mock("../../../shared/services/inference/embeddings.js", () => ({ embed: models.embed }));

const dynamo = mockDynamo();
let tables: FakeTables;
let run: RunRecord;
const STARTED = Date.now() - 60_000;

beforeEach(async () => {
  tables = serveTables(dynamo, {}, { writes: true });
  for (const fn of [machines.completeTask, machines.failTask]) fn.mockReset().mockResolvedValue(true);
  machines.describeRun.mockReset().mockResolvedValue({ startDate: new Date(STARTED) });
  timers.armTimer.mockReset().mockResolvedValue(undefined);
  models.chat.mockReset();
  models.embed.mockReset();
  const workflow = aWorkflow();
  const registration = aRegistration(workflow, { deploymentName: "pool", program: ACTIVITY_PROGRAM, activities: ["summarize"] });
  await workflowRegistry.ensureWorkflow(workflow);
  await workflowRegistry.ensureRegistration(registration);
  run = aRun({ workspace: workflow.workspace, workflowId: workflow.id, registrationId: registration.id, deploymentName: "pool", workflowName: "summarize", userId: randomUUID(), startTime: new Date(STARTED).toISOString() });
  await runStore.start(run, null);
});

const anEvent = (overrides: Partial<DispatchEvent> = {}): DispatchEvent => ({
  token: `token-${Math.random()}`,
  execution: run.executionArn,
  state: "Summarize",
  resource: "activity:summarize",
  input: { text: "hello" },
  ...overrides,
});

const dispatch = (event: DispatchEvent) => handler(event, aContext());
const tasks = () => taskStore.tasksOf(run.workspace, run.runId, "Summarize", inputHashOf({ text: "hello" }));
const events = () => tables.items("executions").filter((i) => String(i.sk).startsWith("SEQ#")).map((i) => i.event as { event_type: string; attributes: Record<string, unknown> });

/** A task of the same call, already there (made before this dispatch). */
async function earlier(overrides: Partial<StoredTask>) {
  const task = aTask(run, { input: { text: "hello" }, createdAtMs: Date.now() - 1000, ...overrides });
  await taskStore.create(task);
  if (overrides.status && overrides.status !== "PENDING") {
    const { taskId, workspace: _w, ...fields } = task;
    tables.put("executions", { ...tables.items("executions").find((i) => i.sk === `TASK#${taskId}`)!, ...fields, taskId });
    if (overrides.status !== "CLAIMED") delete tables.items("executions").find((i) => i.sk === `TASK#${taskId}`)!.queueKey;
  }
  return task;
}

describe("the workflow dispatcher", () => {
  it("fails the token with Workflow.UnknownRun when no run has the execution's name", async () => {
    const event = anEvent({ execution: "arn:aws:states:us-east-1:000000000000:execution:wf-x:no-such-run" });

    await dispatch(event);

    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, "Workflow.UnknownRun", expect.stringContaining("no-such-run"));
  });

  it("keeps a top-level state's input as the run's checkpoint", async () => {
    await dispatch(anEvent({ checkpoint: { doc: "raw input" } }));

    expect((await runStore.get(run.workspace, run.runId))!.checkpoint).toMatchObject({ state: "Summarize", input: { doc: "raw input" }, atMs: expect.any(Number) });
  });

  it("fails an unknown resource with Workflow.UnknownResource", async () => {
    const event = anEvent({ resource: "platform:teleport" });

    await dispatch(event);

    expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, "Workflow.UnknownResource", expect.any(String));
  });

  describe("activity:<name>", () => {
    it("queues a PENDING task for the run's deployment with the state's HeartbeatSeconds, and leaves the token open", async () => {
      const event = anEvent();

      await dispatch(event);

      const [task] = await tasks();
      expect(task).toMatchObject({ status: "PENDING", activity: "summarize", state: "Summarize", deploymentName: run.deploymentName, attempt: 1, heartbeatSeconds: 30, token: event.token, input: { text: "hello" } });
      expect(tables.items("executions").find((i) => i.sk === `TASK#${task!.taskId}`)!.queueKey).toBe(`${run.workspace}#${run.deploymentName}`);
      expect(machines.completeTask).not.toHaveBeenCalled();
      expect(events()).toStrictEqual([]);
    });

    it("dispatches a retry after a failed attempt as attempt 2, with ACTIVITY_TASK_RETRYING", async () => {
      await earlier({ status: "FAILED", failure: { message: "boom", type: "ActivityError" }, closedAtMs: Date.now() - 500 });

      await dispatch(anEvent());

      const all = await tasks();
      expect(all.map((t) => [t.status, t.attempt])).toStrictEqual([["FAILED", 1], ["PENDING", 2]]);
      expect(events()).toStrictEqual([
        expect.objectContaining({ event_type: "ACTIVITY_TASK_RETRYING", attributes: { task_id: all[1]!.taskId, activity_name: "summarize", attempt: 2, failure: { message: "boom", type: "ActivityError" } } }),
      ]);
    });

    it("expires the open task Step Functions gave up on (a heartbeat timeout) and queues the next attempt", async () => {
      const stale = await earlier({ status: "CLAIMED", workerName: "dead" });

      await dispatch(anEvent());

      const all = await tasks();
      expect(all.map((t) => [t.taskId === stale.taskId, t.status, t.attempt])).toStrictEqual([[true, "EXPIRED", 1], [false, "PENDING", 2]]);
    });

    it("gives a task open since before this execution started the new token instead of queueing another (a restart)", async () => {
      const open = await earlier({ status: "CLAIMED", workerName: "w1", createdAtMs: STARTED - 5000 });
      const event = anEvent();

      await dispatch(event);

      const all = await tasks();
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({ taskId: open.taskId, status: "CLAIMED", workerName: "w1", token: event.token });
    });

    it("completes the new token with the result of a completed task whose token was lost, so it does not run twice", async () => {
      await earlier({ status: "COMPLETED", result: { summary: "done" }, closedAtMs: Date.now() - 100 });
      const event = anEvent();

      await dispatch(event);

      expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(event.token, { summary: "done" });
      const all = await tasks();
      expect(all).toHaveLength(1);
      expect(all[0]!.delivered).toBe(true);
    });

    it("runs the activity again when the state is entered again with the same input (a loop)", async () => {
      await earlier({ status: "COMPLETED", result: 1, delivered: true, closedAtMs: Date.now() - 100 });

      await dispatch(anEvent());

      expect(machines.completeTask).not.toHaveBeenCalled();
      const all = await tasks();
      expect(all.map((t) => [t.status, t.attempt])).toStrictEqual([["COMPLETED", 1], ["PENDING", 1]]);
    });

    it("does not reuse a result completed before the run's checkpoint moved on", async () => {
      await earlier({ status: "COMPLETED", result: 1, closedAtMs: Date.now() - 1000 });
      await runStore.setCheckpoint(run.workspace, run.runId, { state: "Later", input: {}, atMs: Date.now() - 10 } as RunRecord["checkpoint"]);

      await dispatch(anEvent());

      expect(machines.completeTask).not.toHaveBeenCalled();
      expect((await tasks()).at(-1)!.status).toBe("PENDING");
    });
  });

  describe("platform:model", () => {
    it("calls the chat model for the run's workspace and user and completes the token with the completion", async () => {
      const completion = { id: "c1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "hi" } }] };
      models.chat.mockResolvedValue({ kind: "answer", body: completion, backend: "offline" });
      const event = anEvent({ resource: "platform:model", state: "Ask", input: { model: "mistral-small-latest", messages: [{ role: "user", content: "hello" }], temperature: 0.2 } });

      await dispatch(event);

      const [ctx, request] = models.chat.mock.calls[0]!;
      expect(ctx.caller).toMatchObject({ workspace: run.workspace, principal: run.userId, keyId: "workflow" });
      expect(ctx.caller.organization).toEqual(expect.any(String));
      expect(ctx.route).toBe("workflow platform:model");
      expect(request).toMatchObject({ model: "mistral-small-latest", messages: [{ role: "user", content: "hello" }], temperature: 0.2, stream: false });
      expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(event.token, completion);
    });

    it("embeds an input of strings", async () => {
      models.embed.mockResolvedValue({ kind: "answer", body: { object: "list", data: [] }, backend: "offline" });
      const event = anEvent({ resource: "platform:model", state: "Embed", input: { model: "mistral-embed", input: ["a", "b"] } });

      await dispatch(event);

      expect(models.embed.mock.calls[0]![1]).toMatchObject({ model: "mistral-embed", input: ["a", "b"] });
      expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(event.token, { object: "list", data: [] });
    });

    it.each([
      [429, "Model.RateLimited"],
      [502, "Model.Error"],
      [400, "Model.InvalidRequest"],
    ])("fails the token when the provider answers %i, as %s", async (status, name) => {
      models.chat.mockRejectedValue(new UpstreamError(status, "upstream said no"));
      const event = anEvent({ resource: "platform:model", input: { model: "m", messages: [{ role: "user", content: "x" }] } });

      await dispatch(event);

      expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, name, "upstream said no");
    });

    it("fails a request the chat route would refuse with Model.InvalidRequest, calling no model", async () => {
      const event = anEvent({ resource: "platform:model", input: { model: "m", messages: "not a list" } });

      await dispatch(event);

      expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, "Model.InvalidRequest", expect.any(String));
      expect(models.chat).not.toHaveBeenCalled();
    });
  });

  it("platform:emit_event appends a custom task event and completes the token with its input", async () => {
    const input = { type: "progress", custom_task_id: "step-1", payload: { done: 3 } };
    const event = anEvent({ resource: "platform:emit_event", state: "Tell", input });

    await dispatch(event);

    expect(events()).toStrictEqual([
      expect.objectContaining({ event_type: "CUSTOM_TASK_IN_PROGRESS", attributes: { custom_task_id: "step-1", custom_task_type: "progress", payload: { type: "json", value: { done: 3 }, encoding_options: [] } } }),
    ]);
    expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(event.token, input);
  });

  it("platform:emit_event takes a CUSTOM_TASK_* type as the event's type", async () => {
    await dispatch(anEvent({ resource: "platform:emit_event", input: { type: "CUSTOM_TASK_COMPLETED", custom_task_type: "upload", payload: 1 } }));

    expect(events()[0]).toMatchObject({ event_type: "CUSTOM_TASK_COMPLETED", attributes: { custom_task_type: "upload" } });
  });

  it("platform:publish_state keeps the input as the run's published state and completes the token with it", async () => {
    const event = anEvent({ resource: "platform:publish_state", state: "Publish", input: { summary: "s" } });

    await dispatch(event);

    expect(await publishedStateStore.get(run.workspace, run.runId)).toMatchObject({ state: { summary: "s" }, publishedAtMs: expect.any(Number) });
    expect(tables.items("executions").some((i) => i.sk === `STATE#${run.runId}`)).toBe(true);
    expect(machines.completeTask).toHaveBeenCalledExactlyOnceWith(event.token, { summary: "s" });
  });

  describe("platform:sleep_until", () => {
    it("arms a task-wake timer that completes the token with the input", async () => {
      const until = new Date(Date.now() + 3_600_000).toISOString();
      const event = anEvent({ resource: "platform:sleep_until", input: { until } });

      await dispatch(event);

      expect(timers.armTimer).toHaveBeenCalledExactlyOnceWith({
        name: expect.stringMatching(/^wake-[0-9a-f-]{36}$/),
        at: new Date(until),
        payload: { kind: "task-wake", token: event.token, output: { until } },
      });
      expect(machines.completeTask).not.toHaveBeenCalled();
    });

    it("completes at once for a time that is past, or zero seconds", async () => {
      await dispatch(anEvent({ resource: "platform:sleep_until", input: { until: "2000-01-01T00:00:00Z" } }));
      await dispatch(anEvent({ resource: "platform:sleep_until", input: { seconds: 0 } }));

      expect(machines.completeTask).toHaveBeenCalledTimes(2);
      expect(timers.armTimer).not.toHaveBeenCalled();
    });

    it("fails an input that names no time with Workflow.InvalidInput", async () => {
      const event = anEvent({ resource: "platform:sleep_until", input: { until: "tomorrow-ish" } });

      await dispatch(event);

      expect(machines.failTask).toHaveBeenCalledExactlyOnceWith(event.token, "Workflow.InvalidInput", expect.any(String));
    });
  });
});
