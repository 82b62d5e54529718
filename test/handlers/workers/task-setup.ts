import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import type { Caller } from "../../../shared/domain/caller.js";
import type { RunRecord } from "../../../shared/domain/workflows/records.js";
import { runStore } from "../../../shared/store/workflows/runs.js";
import { taskStore, type StoredTask } from "../../../shared/store/workflows/tasks.js";
import { aJsonEvent } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aRun, aTask } from "../../support/workflow-builders.js";

/** A run of the caller's workspace with one task, claimed by worker `w1` of deployment `pool` unless `claimed` is false. */
export async function aClaimedTask(dynamo: AwsClientStub<DynamoDBDocumentClient>, caller: Caller, options: { claimed?: boolean; run?: Partial<RunRecord> } = {}) {
  const tables = serveTables(dynamo, {}, { writes: true });
  const run = aRun({ workspace: caller.workspace, deploymentName: "pool", workflowName: "summarize", ...options.run });
  await runStore.start({ ...run, status: "RUNNING" }, null);
  if (run.status !== "RUNNING" || run.cancelRequested) await runStore.setIntent(caller.workspace, run.runId, { cancelRequested: run.cancelRequested });
  if (run.status !== "RUNNING") await runStore.transition(caller.workspace, run.runId, run.status, { endTime: new Date().toISOString() });
  const task: StoredTask = aTask(run);
  await taskStore.create(task);
  if (options.claimed !== false) await taskStore.claimNext(caller.workspace, "pool", "w1");
  return { tables, run, task, events: () => tables.items("executions").filter((item) => String(item.sk).startsWith("SEQ#")).map((item) => item.event as { event_type: string; attributes: Record<string, unknown> }) };
}

/** A task call of worker `w1` of deployment `pool` (the body's other fields as given). */
export const aTaskCall = (caller: Caller, taskId: string, verb: "heartbeat" | "complete" | "fail", body: Record<string, unknown> = {}) =>
  aJsonEvent({ deployment_name: "pool", worker_name: "w1", ...body }, { path: `/v1/workflows/tasks/${taskId}/${verb}`, pathParameters: { task_id: taskId }, caller });

/**
 * Makes `deliver` (the engine's completeTask or failTask mock) record the run's event types at the moment the program
 * gets the task's outcome; the returned function reads them after the call.
 */
export function eventsSeenOnDelivery(deliver: { mockImplementation(fn: () => Promise<boolean>): unknown }, events: () => { event_type: string }[]): () => string[] {
  let seen: string[] = [];
  deliver.mockImplementation(async () => {
    seen = events().map((e) => e.event_type);
    return true;
  });
  return () => seen;
}
