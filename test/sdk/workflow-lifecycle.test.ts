/**
 * The lifecycle of executions through the official SDK (docs/workflows.md, "Continue-as-new, retries, child
 * workflows", "Traces"): programs published to the embedded engine, a retry with the reference worker, and
 * the trace routes (`workflows.executions.getWorkflowExecutionTraceInfo`, `getWorkflowExecutionTraceOtel`).
 */
import { Mistral } from "@mistralai/mistralai";
import * as errors from "@mistralai/mistralai/models/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorker, type RunningWorker } from "../../scripts/worker/run-worker.js";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { COUNTER_PROGRAM, seedPublished } from "../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
const workers: RunningWorker[] = [];
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

beforeAll(() => {
  client = sdkClient(api, tenant.key, { timeoutMs: 30_000 });
});
afterAll(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

async function settled(executionId: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const execution = await client.workflows.executions.getWorkflowExecution({ executionId });
    if (!["RUNNING", "RETRYING_AFTER_ERROR", "CONTINUED_AS_NEW"].includes(String(execution.status)) || Date.now() > deadline) return execution;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("workflow lifecycle through the official SDK", () => {
  it("continues as new twice: the runs list shows CONTINUED_AS_NEW runs and the completed one", async () => {
    await seedPublished(tenant.caller.workspace, COUNTER_PROGRAM, { organization: tenant.caller.organization, workflow: { name: "sdk-counter" } });

    const answer = await client.workflows.executeWorkflow({ workflowIdentifier: "sdk-counter", workflowExecutionRequest: { input: { n: 0 }, executionId: "sdk-count", waitForResult: true } });

    expect(answer).toMatchObject({ executionId: "sdk-count", result: { n: 3 } });
    const runs = await client.workflows.runs.listRuns({ rootExecutionId: "sdk-count", order: "asc" });
    expect(runs.result.executions.map((r) => r.status)).toEqual(["CONTINUED_AS_NEW", "CONTINUED_AS_NEW", "COMPLETED"]);
  });

  it("retries after a failing activity of the reference worker: RETRYING_AFTER_ERROR, then COMPLETED on attempt 2", async () => {
    let calls = 0;
    const worker = runWorker({
      url: api.url,
      key: tenant.key,
      deployment: "sdk-retries",
      name: "sdk-w",
      pollWaitSeconds: 1,
      log: () => {},
      module: {
        workflows: [{ name: "sdk-flaky", definition: { input_schema: { type: "object" }, retry_policy: { maximum_attempts: 2, initial_interval_seconds: 1 } }, program: { StartAt: "Flaky", States: { Flaky: { Type: "Task", Resource: "activity:flaky", End: true } } } }],
        activities: { flaky: async () => ((calls += 1) === 1 ? Promise.reject(new Error("first call fails")) : { calls }) },
      },
    });
    workers.push(worker);
    await worker.registered;

    await client.workflows.executeWorkflow({ workflowIdentifier: "sdk-flaky", workflowExecutionRequest: { executionId: "sdk-flaky-1" } });
    const statuses = new Set<string>();
    let execution = await client.workflows.executions.getWorkflowExecution({ executionId: "sdk-flaky-1" });
    for (let i = 0; i < 200 && execution.status !== "COMPLETED" && execution.status !== "FAILED"; i += 1) {
      statuses.add(String(execution.status));
      await new Promise((r) => setTimeout(r, 50));
      execution = await client.workflows.executions.getWorkflowExecution({ executionId: "sdk-flaky-1" });
    }

    expect(execution).toMatchObject({ status: "COMPLETED", result: { calls: 2 } });
    expect(statuses.has("RETRYING_AFTER_ERROR")).toBe(true);
    const events = await client.workflows.events.getWorkflowEvents({ rootWorkflowExecId: "sdk-flaky-1", limit: 100 });
    const started = events.events.filter((e) => e.eventType === "WORKFLOW_EXECUTION_STARTED");
    expect(started.map((e) => (e.attributes as { attempt?: number }).attempt)).toEqual([1, 2]);
  });

  it("runs a child workflow: the child carries parent and root execution ids", async () => {
    await seedPublished(tenant.caller.workspace, { StartAt: "Echo", States: { Echo: { Type: "Pass", Parameters: { "echo.$": "$.word" }, End: true } } }, { organization: tenant.caller.organization, workflow: { name: "sdk-child" } });
    await seedPublished(tenant.caller.workspace, {
      StartAt: "Child",
      States: { Child: { Type: "Task", Resource: "platform:child_workflow", Parameters: { workflow: "sdk-child", execution_id: "sdk-child-1", "input.$": "$" }, End: true } },
    }, { organization: tenant.caller.organization, workflow: { name: "sdk-parent" } });

    const answer = await client.workflows.executeWorkflow({ workflowIdentifier: "sdk-parent", workflowExecutionRequest: { input: { word: "hi" }, executionId: "sdk-parent-1", waitForResult: true } });

    expect(answer).toMatchObject({ result: { echo: "hi" } });
    const child = await client.workflows.executions.getWorkflowExecution({ executionId: "sdk-child-1" });
    expect(child).toMatchObject({ parentExecutionId: "sdk-parent-1", rootExecutionId: "sdk-parent-1", status: "COMPLETED" });
  });
});

describe("GET /v1/workflows/executions/{execution_id}/trace/info, GET /v1/workflows/executions/{execution_id}/trace/otel (SDK)", () => {
  it("answers the trace id of the execute call's traceparent header, no trace data for a run without model calls, and the execution in the otel view", async () => {
    await seedPublished(tenant.caller.workspace, { StartAt: "Done", States: { Done: { Type: "Pass", Result: { ok: true }, End: true } } }, { organization: tenant.caller.organization, workflow: { name: "sdk-traced" } });
    await client.workflows.executeWorkflow(
      { workflowIdentifier: "sdk-traced", workflowExecutionRequest: { executionId: "sdk-traced-1", waitForResult: true } },
      { headers: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } },
    );

    const info = await client.workflows.executions.getWorkflowExecutionTraceInfo({ executionId: "sdk-traced-1" });
    const otel = await client.workflows.executions.getWorkflowExecutionTraceOtel({ executionId: "sdk-traced-1" });

    expect(info).toEqual({ otelTraceId: TRACE_ID, hasTraceData: false });
    expect(otel).toMatchObject({ executionId: "sdk-traced-1", workflowName: "sdk-traced", status: "COMPLETED", result: { ok: true }, dataSource: "none", otelTraceId: TRACE_ID, otelTraceData: null });
    expect(otel.startTime).toBeInstanceOf(Date);
  });

  it("answers trace data once the run called a model: the chat span of the run's trace, in OTLP resource spans", async () => {
    const program = {
      StartAt: "Ask",
      States: { Ask: { Type: "Task", Resource: "platform:model", Parameters: { model: "mistral-small-latest", messages: [{ role: "user", content: "traced question" }] }, ResultSelector: { "answer.$": "$.choices[0].message.content" }, End: true } },
    };
    await seedPublished(tenant.caller.workspace, program, { organization: tenant.caller.organization, workflow: { name: "sdk-model-traced" } });
    const trace = "5bf92f3577b34da6a3ce929d0e0e4737";
    await client.workflows.executeWorkflow(
      { workflowIdentifier: "sdk-model-traced", workflowExecutionRequest: { executionId: "sdk-model-traced-1", waitForResult: true } },
      { headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } },
    );
    expect((await settled("sdk-model-traced-1")).status).toBe("COMPLETED");

    const info = await client.workflows.executions.getWorkflowExecutionTraceInfo({ executionId: "sdk-model-traced-1" });
    const otel = await client.workflows.executions.getWorkflowExecutionTraceOtel({ executionId: "sdk-model-traced-1" });
    const spans = await client.beta.observability.traces.getTraceSpans({ traceId: trace });

    expect(info).toEqual({ otelTraceId: trace, hasTraceData: true });
    expect(otel.dataSource).toBe("platform-telemetry");
    const batches = (otel.otelTraceData as { batches: { scopeSpans: { spans: { traceId: string; name: string; attributes: { key: string; value: unknown }[] }[] }[] }[] }).batches;
    const otlpSpan = batches[0]!.scopeSpans[0]!.spans[0]!;
    expect(otlpSpan).toMatchObject({ traceId: trace, name: "chat mistral-small-latest" });
    expect(otlpSpan.attributes).toContainEqual({ key: "gen_ai.workflow.name", value: { stringValue: "sdk-model-traced" } });
    expect(spans.spans.results).toHaveLength(1);
    expect(spans.spans.results![0]).toMatchObject({ workflowName: "sdk-model-traced", operationName: "chat", traceId: trace });
  });

  it("generates a trace id when the execute call has none, and answers 404 for an unknown execution", async () => {
    await client.workflows.executeWorkflow({ workflowIdentifier: "sdk-traced", workflowExecutionRequest: { executionId: "sdk-traced-2" } });
    await settled("sdk-traced-2");

    const info = await client.workflows.executions.getWorkflowExecutionTraceInfo({ executionId: "sdk-traced-2" });

    expect(info.otelTraceId).toMatch(/^[0-9a-f]{32}$/);
    expect(info.otelTraceId).not.toBe(TRACE_ID);
    const missing = await errorOf(client.workflows.executions.getWorkflowExecutionTraceInfo({ executionId: "sdk-nope" }), errors.MistralError);
    expect(missing.statusCode).toBe(404);
  });
});
