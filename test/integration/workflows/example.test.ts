import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { runWorker, type RunningWorker, type WorkflowModule } from "../../../scripts/worker/run-worker.js";
import { useEmbeddedApi } from "../../support/api.js";
import { sdkClient } from "../../support/sdk.js";
import { sseFrames, workflowsClient } from "../../support/workflow-builders.js";

/**
 * The example workflow (examples/workflows/summarize) end to end: registered and served by the reference
 * worker, executed through HTTP and the official SDK, run by the local Step Functions with the dispatcher,
 * the offline model and the status handler.
 */
const example = (await import(new URL("../../../examples/workflows/summarize/activities.mjs", import.meta.url).href)) as WorkflowModule;
const QUICK_MODULE = join(ROOT_DIR, "test/support/workflow-modules/summarize-quick-heartbeat.mjs");
const quick = (await import(QUICK_MODULE)) as WorkflowModule;

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const workers: RunningWorker[] = [];
const children: ReturnType<typeof spawn>[] = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});
afterAll(() =>
  children.forEach((child) => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Gone already.
    }
  }),
);

async function startWorker(module: WorkflowModule, name: string) {
  const worker = runWorker({ url: api.url, key: tenant.key, deployment: "examples", name, module, pollWaitSeconds: 1, concurrency: 2, log: () => {} });
  workers.push(worker);
  await worker.registered;
  return worker;
}

const TEXT = "Step Functions runs the program. Workers run the activities. The platform runs the models and keeps the events.";

async function closed(executionId: string) {
  for (let i = 0; i < 200; i += 1) {
    const execution = (await http.execution(executionId)).body;
    if (execution.status !== "RUNNING") return execution;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${executionId} is still running`);
}

describe("POST /v1/workflows/{workflow_identifier}/execute with the reference worker: the example workflow end to end", () => {
  it("runs to COMPLETED through the official SDK with wait_for_result: activities on the worker, the model on the platform", async () => {
    await startWorker(example, "sdk-worker");
    // The call waits for the result up to its timeoutSeconds (20 s): the client must wait longer than that.
    const client = sdkClient(api, tenant.key, { timeoutMs: 30_000 });

    const answer = await client.workflows.executeWorkflow({
      workflowIdentifier: "summarize",
      workflowExecutionRequest: { input: { text: TEXT, max_words: 6 }, waitForResult: true, timeoutSeconds: 20 },
    });

    expect(answer).toMatchObject({ workflowName: "summarize", result: { summary: "Step Functions runs the program. Workers …", words: 18, model_note: expect.stringContaining("[offline]") } });
    const { executionId } = answer as { executionId: string };
    const execution = await client.workflows.executions.getWorkflowExecution({ executionId });
    expect(execution).toMatchObject({ status: "COMPLETED", workflowName: "summarize", deploymentName: "examples" });
  });

  it("runs asynchronously: RUNNING at once, then COMPLETED, its event stream read to the end", async () => {
    await startWorker(example, "async-worker");

    const started = await http.execute("summarize", { input: { text: TEXT }, execution_id: "example-async" });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ execution_id: "example-async", status: "RUNNING", end_time: null, result: null });

    const stream = await http.stream({ root_workflow_exec_id: "example-async" });
    const types = sseFrames(stream.body)
      .filter((f) => f.event === "workflow.event")
      .map((f) => f.data.data.event_type);
    expect(types[0]).toBe("WORKFLOW_EXECUTION_STARTED");
    expect(types.filter((t: string) => t === "ACTIVITY_TASK_COMPLETED")).toHaveLength(2);
    expect(types.at(-1)).toBe("WORKFLOW_EXECUTION_COMPLETED");
    expect(await closed("example-async")).toMatchObject({ status: "COMPLETED", result: { summary: expect.any(String) } });
  });

  it("retries an activity on another worker when its worker is killed mid-task (heartbeat timeout, then the program's Retry)", { timeout: 90_000 }, async () => {
    // A worker process whose Summarize never finishes, killed once it holds the task.
    const doomed = spawn(join(ROOT_DIR, "node_modules/.bin/tsx"), ["scripts/worker.ts", "--deployment", "examples", "--module", QUICK_MODULE, "--url", api.url, "--key", tenant.key, "--name", "doomed"], {
      cwd: ROOT_DIR,
      env: { ...process.env, WORKER_HANGS: "1" },
      stdio: "ignore",
      // Its own process group: tsx runs the worker in a child process, and a kill must take both.
      detached: true,
    });
    children.push(doomed);

    let started: { status: number } | undefined;
    for (let i = 0; i < 100 && started?.status !== 200; i += 1) {
      // The doomed worker registers the workflow; until it has, the workflow is unknown.
      started = await http.execute("summarize-quick-heartbeat", { input: { text: TEXT }, execution_id: "example-killed" });
      if (started.status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(started!.status).toBe(200);
    for (let i = 0; i < 200; i += 1) {
      const events = (await http.events({ workflow_exec_id: "example-killed" })).body.events as { event_type: string; attributes: { activity_name?: string } }[];
      if (events.some((e) => e.event_type === "ACTIVITY_TASK_STARTED" && e.attributes.activity_name === "summarize")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(-doomed.pid!, "SIGKILL");

    await startWorker(quick, "survivor");
    const execution = await closed("example-killed");

    expect(execution).toMatchObject({ status: "COMPLETED", result: { summary: expect.any(String) } });
    const events = (await http.events({ workflow_exec_id: "example-killed", limit: "100" })).body.events as { event_type: string; attributes: { activity_name?: string; attempt?: number } }[];
    expect(events.some((e) => e.event_type === "ACTIVITY_TASK_RETRYING" && e.attributes.activity_name === "summarize" && e.attributes.attempt === 2)).toBe(true);
  });
});
