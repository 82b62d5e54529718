import { afterEach, describe, expect, it } from "vitest";
import { describeRun, startRun } from "../../../shared/engine/workflow-machines.js";
import { eventStore } from "../../../shared/store/workflows/events.js";
import { publishedStateStore } from "../../../shared/store/workflows/published-state.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { runWorker, type RunningWorker, type WorkflowModule } from "../../../scripts/worker/run-worker.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { aRun } from "../../support/workflow-builders.js";

const example = (await import(new URL("../../../examples/workflows/summarize/activities.mjs", import.meta.url).href)) as WorkflowModule;

const { api, tenant } = useEmbeddedApi();
const workers: RunningWorker[] = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

function startWorker(module: WorkflowModule = example, name = "w1") {
  const worker = runWorker({ url: api.url, key: tenant.key, deployment: "examples", name, module, pollWaitSeconds: 1, concurrency: 2, log: () => {} });
  workers.push(worker);
  return worker;
}

/**
 * A run of the registered workflow started on its machine version, as the execute route will start it
 * (that route lands with the executions work: this drives the engine directly).
 */
async function started(registrationId: string, input: object) {
  const registration = (await workflowRegistry.getRegistration(tenant.caller.workspace, registrationId))!;
  const run = aRun({
    workspace: tenant.caller.workspace,
    workflowId: registration.workflowId,
    workflowName: registration.workflowName,
    registrationId,
    deploymentName: "examples",
    userId: tenant.caller.principal,
    input,
  });
  // The run is written before its execution starts: the dispatcher finds it from the execution's name.
  await runStore.start(run, null);
  const executionArn = await startRun(registration.versionArn, run.runId, input);
  return { ...run, executionArn };
}

async function finished(executionArn: string) {
  for (let i = 0; i < 200; i += 1) {
    const described = await describeRun(executionArn);
    if (described && described.status !== "RUNNING") return described;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${executionArn} did not finish`);
}

describe("POST /v1/workflows/register, POST /v1/workflows/workers/poll (the reference worker and the example workflow)", () => {
  it("registers the example and runs it end to end: activities on the worker, the model and the published state on the platform", async () => {
    const worker = startWorker();
    const { workflow_registration_ids: [registrationId] } = await worker.registered;

    const run = await started(registrationId!, { text: "Step Functions runs the program. Workers run the activities. The API glues them.", max_words: 8 });
    const outcome = await finished(run.executionArn);

    expect(outcome.status).toBe("SUCCEEDED");
    const output = JSON.parse(outcome.output!);
    expect(output).toStrictEqual({ summary: "Step Functions runs the program. Workers run the …", words: 13, model_note: expect.stringContaining("[offline]") });
    expect((await publishedStateStore.get(tenant.caller.workspace, run.runId))!.state).toStrictEqual({ stage: "summarized", summary: output.summary });
    // The activities' events (the status handler adds the run's closing event when it hears of the end).
    const types = (await eventStore.listFrom(tenant.caller.workspace, run.rootExecutionId, 0, 100)).map((e) => e.event.event_type).filter((t) => t.startsWith("ACTIVITY_"));
    expect(types).toStrictEqual(["ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED", "ACTIVITY_TASK_STARTED", "ACTIVITY_TASK_COMPLETED"]);
  });

  it("reads an uploaded file through the API with the worker's key", async () => {
    const file = await filesClient(api, tenant).uploaded({ filename: "doc.txt", content: "Uploaded words become a summary here.", purpose: "ocr" });
    const worker = startWorker();
    const { workflow_registration_ids: [registrationId] } = await worker.registered;

    const run = await started(registrationId!, { file_id: file.id, max_words: 3 });
    const outcome = await finished(run.executionArn);

    expect(outcome.status).toBe("SUCCEEDED");
    expect(JSON.parse(outcome.output!).summary).toBe("Uploaded words become …");
  });

  it("fails the step with the thrown error's name, which the program's Catch sees", async () => {
    const failing: WorkflowModule = {
      ...example,
      activities: { ...example.activities, read_file: async () => Promise.reject(Object.assign(new Error("no such document"), { name: "NothingToRead" })) },
    };
    const worker = startWorker(failing);
    const { workflow_registration_ids: [registrationId] } = await worker.registered;

    const run = await started(registrationId!, { text: "x" });
    const outcome = await finished(run.executionArn);

    expect(outcome.status).toBe("FAILED");
    expect(outcome.error).toBe("NothingToRead");
    expect(outcome.cause).toBe("no such document");
  });

  it("stops cleanly: registered every interval until stopped, then no more polls", async () => {
    const worker = startWorker();
    await worker.registered;

    await worker.stop();

    const [record] = await workflowRegistry.listWorkers(tenant.caller.workspace, "examples");
    expect(record).toMatchObject({ name: "w1", workflows: ["summarize"] });
  });
});
