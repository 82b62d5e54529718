import type { Caller } from "../../domain/caller.js";
import { runStore } from "../../store/workflows/runs.js";
import { findWorkflow } from "./workflows.js";

/**
 * GET /v1/workflows/{workflow_name}/metrics: the workflow's runs that started in [start_time, end_time]
 * (the `byWorkflowStart` index). Errors are FAILED and TERMINATED runs; latency is over closed runs, in
 * order of start, as [end in epoch seconds, duration in ms]. Workflow-level retries do not exist yet, so
 * the retry rate is -1 ("not measured"), as Mistral reports it.
 */
export async function metrics(caller: Pick<Caller, "workspace">, identifier: string, window: { start_time?: string; end_time?: string }) {
  const workflow = await findWorkflow(caller, identifier);
  const from = window.start_time ? new Date(window.start_time).toISOString() : "0000";
  const to = new Date(window.end_time ?? Date.now()).toISOString();
  const runs = await runStore.listWorkflowRuns(caller.workspace, workflow.name, from, to);
  const closed = runs.filter((r) => r.endTime);
  const latencies = closed.map((r) => [Math.floor(Date.parse(r.endTime!) / 1000), Math.max(0, Date.parse(r.endTime!) - Date.parse(r.startTime))] as [number, number]);
  const total = latencies.reduce((sum, [, ms]) => sum + ms, 0);
  return {
    execution_count: { value: runs.length },
    success_count: { value: runs.filter((r) => r.status === "COMPLETED").length },
    error_count: { value: runs.filter((r) => r.status === "FAILED" || r.status === "TERMINATED").length },
    average_latency_ms: { value: latencies.length ? Math.round(total / latencies.length) : 0 },
    latency_over_time: { value: latencies },
    retry_rate: { value: -1 },
  };
}
