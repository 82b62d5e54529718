/**
 * The lifecycle of executions on the embedded servers (docs/workflows.md, "Continue-as-new, retries, child
 * workflows"): continue-as-new through the dispatcher's built-in and the status handler, workflow-level
 * retries on the timer port with the reference worker, child workflows.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runWorker, type RunningWorker, type WorkflowModule } from "../../../scripts/worker/run-worker.js";
import { useEmbeddedApi } from "../../support/api.js";
import { COUNTER_PROGRAM, seedPublished, sseFrames, workflowsClient } from "../../support/workflow-builders.js";
import { readUntil } from "../../support/read-until.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const ws = () => tenant.caller.workspace;
const workers: RunningWorker[] = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

// CONTINUED_AS_NEW is the execution's status only between a run's end and the start of the next.
const closed = (id: string) => readUntil(() => http.execution(id), (r) => !["RUNNING", "RETRYING_AFTER_ERROR", "CONTINUED_AS_NEW"].includes(r.body.status));
type Event = { event_type: string; workflow_run_id: string; continued_run_id: string | null; first_execution_run_id: string | null; attributes: Record<string, any> };
const listEvents = async (root: string): Promise<Event[]> => (await http.events({ root_workflow_exec_id: root, limit: 1000 })).body.events;
/** The root's events once the closing event of its latest run is written (a close moves the run first, then writes its event). */
async function eventsOf(root: string): Promise<Event[]> {
  const latest = (await http.execution(root)).body.run_id;
  const closing = ["WORKFLOW_EXECUTION_COMPLETED", "WORKFLOW_EXECUTION_FAILED", "WORKFLOW_EXECUTION_CANCELED"];
  return readUntil(() => listEvents(root), (events) => events.some((e) => e.workflow_run_id === latest && closing.includes(e.event_type)));
}

describe("platform:continue_as_new (POST /v1/workflows/{workflow_identifier}/execute)", () => {
  it("continues as new twice: each run ends CONTINUED_AS_NEW, the execution follows its latest run to the result", async () => {
    await seedPublished(ws(), COUNTER_PROGRAM, { workflow: { name: "counter" } });

    const started = await http.execute("counter", { execution_id: "count-1", input: { n: 0 } });
    const final = await closed("count-1");

    expect(final.body).toMatchObject({ status: "COMPLETED", result: { n: 3 }, execution_id: "count-1" });
    expect(final.body.run_id).not.toBe(started.body.run_id);
    const runs = (await http.runs({ root_execution_id: "count-1", order: "asc" })).body.executions;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(["CONTINUED_AS_NEW", "CONTINUED_AS_NEW", "COMPLETED"]);
    const [first, second, third] = runs.map((r: { run_id: string }) => r.run_id);
    expect(first).toBe(started.body.run_id);
    expect(third).toBe(final.body.run_id);

    const events = await eventsOf("count-1");
    expect(events.map((e) => e.event_type)).toEqual([
      "WORKFLOW_EXECUTION_STARTED",
      "WORKFLOW_EXECUTION_CONTINUED_AS_NEW",
      "WORKFLOW_EXECUTION_STARTED",
      "WORKFLOW_EXECUTION_CONTINUED_AS_NEW",
      "WORKFLOW_EXECUTION_STARTED",
      "WORKFLOW_EXECUTION_COMPLETED",
    ]);
    expect(events.map((e) => e.workflow_run_id)).toEqual([first, first, second, second, third, third]);
    expect(events[1]!.attributes).toEqual({ task_id: first, new_execution_run_id: second, workflow_name: "counter", input: { type: "json", value: { n: 1 }, encoding_options: [] } });
    expect(events[2]!.continued_run_id).toBe(first);
    expect(events[4]!.continued_run_id).toBe(second);
    expect(events[4]!.attributes.input.value).toEqual({ n: 2 });
    expect(events.every((e) => e.first_execution_run_id === first)).toBe(true);
    expect((await http.run(first)).body).toMatchObject({ status: "CONTINUED_AS_NEW", result: null });
  });

  it("answers wait_for_result with the last run's result, following the chain", async () => {
    await seedPublished(ws(), COUNTER_PROGRAM, { workflow: { name: "counter-wait" } });

    const answer = await http.execute("counter-wait", { execution_id: "count-wait", input: { n: 1 }, wait_for_result: true });

    expect(answer.body).toEqual({ workflow_name: "counter-wait", execution_id: "count-wait", result: { n: 3 } });
  });

  it("fails the Task with Workflow.InvalidInput when the next input breaks the input_schema: the run fails, nothing continues", async () => {
    await seedPublished(ws(), { StartAt: "Again", States: { Again: { Type: "Task", Resource: "platform:continue_as_new", Parameters: { name: 42 }, End: true } } }, { workflow: { name: "bad-next" } });

    await http.execute("bad-next", { execution_id: "bad-next-1", input: { name: "x" } });
    const final = await closed("bad-next-1");

    expect(final.body.status).toBe("FAILED");
    expect((await http.runs({ root_execution_id: "bad-next-1" })).body.executions).toHaveLength(1);
    const failed = (await eventsOf("bad-next-1")).at(-1)!;
    expect(failed.event_type).toBe("WORKFLOW_EXECUTION_FAILED");
    expect(failed.attributes.failure.message).toContain("input_schema");
  });
});

/** One activity Task with no Retry of its own: a failing activity fails the run, and the workflow-level policy retries it. */
const FLAKY_PROGRAM = { StartAt: "Flaky", States: { Flaky: { Type: "Task", Resource: "activity:flaky", HeartbeatSeconds: 30, End: true } } };

function flakyModule(failures: number, retryPolicy: Record<string, unknown>, name = "flaky"): { module: WorkflowModule; calls: () => number } {
  let calls = 0;
  const module: WorkflowModule = {
    workflows: [{ name, definition: { input_schema: { type: "object" }, retry_policy: retryPolicy }, program: FLAKY_PROGRAM }],
    activities: {
      flaky: async (input: { tag?: string }) => {
        calls += 1;
        if (calls <= failures) throw Object.assign(new Error(`call ${calls} fails`), { name: "FlakyError" });
        return { ok: true, calls, tag: input.tag ?? null };
      },
    },
  };
  return { module, calls: () => calls };
}

async function startWorker(module: WorkflowModule, deployment: string) {
  const worker = runWorker({ url: api.url, key: tenant.key, deployment, name: `w-${deployment}`, module, pollWaitSeconds: 1, concurrency: 2, log: () => {} });
  workers.push(worker);
  await worker.registered;
  return worker;
}

describe("workflow-level retries (definition.retry_policy, POST /v1/workflows/{workflow_identifier}/execute)", () => {
  it("retries a run whose activity failed: RETRYING_AFTER_ERROR, then a second run with attempt 2 completes", async () => {
    const flaky = flakyModule(1, { maximum_attempts: 3, initial_interval_seconds: 1, backoff_coefficient: 2 });
    await startWorker(flaky.module, "retries");

    const started = await http.execute("flaky", { execution_id: "flaky-1", input: { tag: "t" } });
    const stream = http.stream({ root_workflow_exec_id: "flaky-1" });
    const seen = new Set<string>();
    const final = await readUntil(
      () => http.execution("flaky-1"),
      (r) => (seen.add(r.body.status), r.body.status === "COMPLETED" || r.body.status === "FAILED"),
    );

    expect(final.body).toMatchObject({ status: "COMPLETED", result: { ok: true, calls: 2, tag: "t" } });
    expect(seen.has("RETRYING_AFTER_ERROR")).toBe(true);
    expect(flaky.calls()).toBe(2);
    const runs = (await http.runs({ root_execution_id: "flaky-1", order: "asc" })).body.executions;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(["FAILED", "COMPLETED"]);
    expect(runs[0].run_id).toBe(started.body.run_id);
    const events = await eventsOf("flaky-1");
    expect(events.filter((e) => e.event_type.startsWith("WORKFLOW_")).map((e) => [e.event_type, e.attributes.attempt])).toEqual([
      ["WORKFLOW_EXECUTION_STARTED", 1],
      ["WORKFLOW_EXECUTION_FAILED", 1],
      ["WORKFLOW_EXECUTION_STARTED", 2],
      ["WORKFLOW_EXECUTION_COMPLETED", 2],
    ]);
    const failed = events.find((e) => e.event_type === "WORKFLOW_EXECUTION_FAILED")!;
    expect(failed.attributes.failure.message).toContain("call 1 fails");
    expect(events.every((e) => e.first_execution_run_id === started.body.run_id)).toBe(true);
    expect(events.at(-1)!.continued_run_id).toBeNull();
    expect((await http.run(started.body.run_id)).body.end_time).not.toBeNull();
    // The stream goes on past the failed attempt and ends after the retried run's closing event.
    const frames = (await stream).body;
    expect(sseFrames(frames).map((f) => f.data.data.event_type).filter((t: string) => t.startsWith("WORKFLOW_"))).toEqual([
      "WORKFLOW_EXECUTION_STARTED",
      "WORKFLOW_EXECUTION_FAILED",
      "WORKFLOW_EXECUTION_STARTED",
      "WORKFLOW_EXECUTION_COMPLETED",
    ]);
  });

  it("refuses a retry_policy it cannot use at registration (422)", async () => {
    const reply = await http.request("POST", "/v1/workflows/register", {
      json: { deployment_name: "retries-bad", worker_name: "w", definitions: [{ name: "bad-policy", definition: { input_schema: { type: "object" }, retry_policy: { maximum_attempts: 0, backoff: 2 } }, program: FLAKY_PROGRAM }] },
    });

    expect(reply.status).toBe(422);
    expect(reply.body.detail.map((d: { loc: unknown[] }) => d.loc.slice(-2))).toEqual(expect.arrayContaining([["retry_policy", "maximum_attempts"], ["retry_policy", "backoff"]]));
  });

  it("stops after maximum_attempts: every run FAILED, the execution FAILED", async () => {
    const flaky = flakyModule(99, { maximum_attempts: 2, initial_interval_seconds: 0 }, "always-fails");
    await startWorker(flaky.module, "retries-out");

    await http.execute("always-fails", { execution_id: "always-1" });
    const final = await closed("always-1");

    expect(final.body.status).toBe("FAILED");
    expect(flaky.calls()).toBe(2);
    const runs = (await http.runs({ root_execution_id: "always-1" })).body.executions;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(["FAILED", "FAILED"]);
  });

  it("does not retry a non-retryable error type", async () => {
    const flaky = flakyModule(99, { maximum_attempts: 5, initial_interval_seconds: 0, non_retryable_error_types: ["FlakyError"] }, "no-retry");
    await startWorker(flaky.module, "retries-none");

    await http.execute("no-retry", { execution_id: "no-retry-1" });

    expect((await closed("no-retry-1")).body.status).toBe("FAILED");
    expect(flaky.calls()).toBe(1);
  });

  it("terminates an execution waiting for its retry at once: TERMINATED, no further run", async () => {
    const flaky = flakyModule(1, { maximum_attempts: 3, initial_interval_seconds: 3600 }, "slow-retry");
    await startWorker(flaky.module, "retries-slow");
    await http.execute("slow-retry", { execution_id: "slow-1" });
    await readUntil(() => http.execution("slow-1"), (r) => r.body.status === "RETRYING_AFTER_ERROR");

    expect((await http.terminate("slow-1")).status).toBe(204);

    expect((await http.execution("slow-1")).body.status).toBe("TERMINATED");
    expect((await http.runs({ root_execution_id: "slow-1" })).body.executions).toHaveLength(1);
  });
});

const CHILD_GREETER = { StartAt: "Greet", States: { Greet: { Type: "Pass", Parameters: { "greeting.$": "States.Format('Hello {}', $.name)" }, End: true } } };
const CHILD_FAILS = { StartAt: "Boom", States: { Boom: { Type: "Fail", Error: "Child.Boom", Cause: "the child gives up" } } };
const CHILD_SLEEPS = { StartAt: "Sleep", States: { Sleep: { Type: "Wait", Seconds: 3600, End: true } } };
const parentOf = (child: string, extra: Record<string, unknown> = {}) => ({
  StartAt: "Child",
  States: {
    Child: { Type: "Task", Resource: "platform:child_workflow", Parameters: { workflow: child, "input.$": "$", ...extra }, ResultPath: "$.child", End: true },
  },
});

describe("platform:child_workflow (POST /v1/workflows/{workflow_identifier}/execute)", () => {
  it("starts a child with parent and root ids, waits for it, and continues with its result", async () => {
    await seedPublished(ws(), CHILD_GREETER, { workflow: { name: "child-greeter" } });
    const parent = await seedPublished(ws(), parentOf("child-greeter"), { workflow: { name: "parent-greeter" } });

    const answer = await http.execute("parent-greeter", { execution_id: "parent-1", input: { name: "Ada" }, wait_for_result: true });

    expect(answer.body).toEqual({ workflow_name: "parent-greeter", execution_id: "parent-1", result: { name: "Ada", child: { greeting: "Hello Ada" } } });
    const parentRun = (await http.execution("parent-1")).body;
    const child = await http.execution(`${parentRun.run_id}-Child`);
    expect(child.body).toMatchObject({ workflow_name: "child-greeter", status: "COMPLETED", parent_execution_id: "parent-1", root_execution_id: "parent-1", result: { greeting: "Hello Ada" }, user_id: tenant.caller.principal });
    const events = await eventsOf("parent-1");
    expect(events.map((e) => [e.event_type, (e as unknown as { workflow_exec_id: string }).workflow_exec_id])).toEqual([
      ["WORKFLOW_EXECUTION_STARTED", "parent-1"],
      ["WORKFLOW_EXECUTION_STARTED", `${parentRun.run_id}-Child`],
      ["WORKFLOW_EXECUTION_COMPLETED", `${parentRun.run_id}-Child`],
      ["WORKFLOW_EXECUTION_COMPLETED", "parent-1"],
    ]);
    expect(events[1]).toMatchObject({ parent_workflow_exec_id: "parent-1", root_workflow_exec_id: "parent-1" });
    expect(parent.workflow.name).toBe("parent-greeter");
  });

  it("fails the parent's Task with Workflow.ChildFailed when the child fails: the parent's Catch sees it", async () => {
    await seedPublished(ws(), CHILD_FAILS, { workflow: { name: "child-fails" } });
    const program = parentOf("child-fails", { execution_id: "the-child" });
    (program.States.Child as Record<string, unknown>).Catch = [{ ErrorEquals: ["Workflow.ChildFailed"], ResultPath: "$.error", Next: "Handled" }];
    (program.States as Record<string, unknown>).Handled = { Type: "Pass", End: true };
    await seedPublished(ws(), program, { workflow: { name: "parent-catches" } });

    const answer = await http.execute("parent-catches", { execution_id: "parent-2", input: {}, wait_for_result: true });

    expect(answer.body.result.error.Error).toBe("Workflow.ChildFailed");
    expect(JSON.parse(answer.body.result.error.Cause)).toMatchObject({ execution_id: "the-child", status: "FAILED", failure: { message: "the child gives up", type: "Child.Boom" } });
    expect((await http.execution("the-child")).body).toMatchObject({ status: "FAILED", parent_execution_id: "parent-2" });
  });

  it("refuses an unknown child workflow with Workflow.ChildNotStarted: the parent fails saying so", async () => {
    await seedPublished(ws(), parentOf("no-such-workflow"), { workflow: { name: "parent-orphan" } });

    await http.execute("parent-orphan", { execution_id: "parent-3" });
    const final = await closed("parent-3");

    expect(final.body.status).toBe("FAILED");
    expect((await eventsOf("parent-3")).at(-1)!.attributes.failure.message).toContain("no-such-workflow");
  });

  it("terminating the parent terminates its open child; canceling a child fails the parent's Task with Workflow.ChildCanceled", async () => {
    await seedPublished(ws(), CHILD_SLEEPS, { workflow: { name: "child-sleeps" } });
    await seedPublished(ws(), parentOf("child-sleeps", { execution_id: "sleepy-child-1" }), { workflow: { name: "parent-waits" } });
    await http.execute("parent-waits", { execution_id: "parent-4" });
    await readUntil(() => http.execution("sleepy-child-1"), (r) => r.status === 200 && r.body.status === "RUNNING");

    expect((await http.terminate("parent-4")).status).toBe(204);
    expect((await readUntil(() => http.execution("sleepy-child-1"), (r) => r.body.status !== "RUNNING")).body.status).toBe("TERMINATED");

    await seedPublished(ws(), parentOf("child-sleeps", { execution_id: "sleepy-child-2" }), { workflow: { name: "parent-waits-2" } });
    await http.execute("parent-waits-2", { execution_id: "parent-5" });
    await readUntil(() => http.execution("sleepy-child-2"), (r) => r.status === 200 && r.body.status === "RUNNING");
    expect((await http.cancel("sleepy-child-2")).status).toBe(204);
    const parent = await closed("parent-5");
    expect(parent.body.status).toBe("FAILED");
    const failed = (await eventsOf("parent-5")).filter((e) => e.event_type === "WORKFLOW_EXECUTION_FAILED" && (e as unknown as { workflow_exec_id: string }).workflow_exec_id === "parent-5");
    expect(failed[0]!.attributes.failure.message).toContain("CANCELED");
  });
});
