/**
 * Cancel of an execution whose activity is in a worker's hands, on the embedded servers with the reference
 * worker (docs/workflows.md, "Executions"): the activity stops when its heartbeat says `cancel_requested` (the
 * example workflow's pattern: it throws), its Task fails, and the execution still ends CANCELED.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runWorker, type RunningWorker, type WorkflowModule } from "../../../scripts/worker/run-worker.js";
import { useEmbeddedApi } from "../../support/api.js";
import { readUntil } from "../../support/read-until.js";
import { workflowsClient } from "../../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const workers: RunningWorker[] = [];

// A grace period longer than the test: only the activity's own failure can close the run (in-process servers read it per call).
const grace = process.env.WORKFLOW_CANCEL_GRACE_SECONDS;
beforeAll(() => {
  process.env.WORKFLOW_CANCEL_GRACE_SECONDS = "600";
});
afterAll(() => {
  if (grace === undefined) delete process.env.WORKFLOW_CANCEL_GRACE_SECONDS;
  else process.env.WORKFLOW_CANCEL_GRACE_SECONDS = grace;
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

/** One activity that works until its heartbeat says the run is being cancelled, then stops by throwing. */
function cancellableModule(): { module: WorkflowModule; started: Promise<void> } {
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const module: WorkflowModule = {
    workflows: [
      {
        name: "long-work",
        definition: { input_schema: { type: "object" } },
        program: { StartAt: "Work", States: { Work: { Type: "Task", Resource: "activity:work", HeartbeatSeconds: 30, End: true } } },
      },
    ],
    activities: {
      async work(_input, ctx) {
        started();
        for (;;) {
          const { cancel_requested } = await ctx.heartbeat({ working: true });
          if (cancel_requested) throw Object.assign(new Error("Cancelled"), { name: "Cancelled" });
          await new Promise((r) => setTimeout(r, 100));
        }
      },
    },
  } as WorkflowModule;
  return { module, started: startedPromise };
}

describe("POST /v1/workflows/executions/{execution_id}/cancel with an activity in a worker's hands", () => {
  it("ends CANCELED when the activity stops on cancel_requested and fails its Task before the grace period is over", async () => {
    const { module, started } = cancellableModule();
    const worker = runWorker({ url: api.url, key: tenant.key, deployment: "cancels", name: "w-cancel", module, pollWaitSeconds: 1, concurrency: 1, log: () => {} });
    workers.push(worker);
    await worker.registered;
    await http.execute("long-work", { execution_id: "cancel-me", input: {} });
    await started;

    const canceled = await http.cancel("cancel-me");

    expect(canceled.status).toBe(204);
    const final = await readUntil(() => http.execution("cancel-me"), (r) => r.body.status !== "RUNNING");
    expect(final.body.status).toBe("CANCELED");
    const events = await readUntil(
      async () => (await http.events({ root_workflow_exec_id: "cancel-me" })).body.events.map((e: { event_type: string }) => e.event_type),
      (types: string[]) => types.includes("WORKFLOW_EXECUTION_CANCELED"),
    );
    expect(events).toContain("ACTIVITY_TASK_FAILED");
    expect(events).not.toContain("WORKFLOW_EXECUTION_FAILED");
    expect(events.at(-1)).toBe("WORKFLOW_EXECUTION_CANCELED");
  });
});
