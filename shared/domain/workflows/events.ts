import { WORKFLOW_EVENT_TYPE_VALUES } from "../../schemas/workflows.js";
import type { RunRecord } from "./records.js";

/** OA:WorkflowEventType (the wire's list, in the route schemas). */
export const WORKFLOW_EVENT_TYPES = WORKFLOW_EVENT_TYPE_VALUES;

export type WorkflowEventType = (typeof WORKFLOW_EVENT_TYPES)[number];

/** The events after which a root execution produces no more (the SSE stream ends there). */
export const TERMINAL_EVENT_TYPES: readonly WorkflowEventType[] = [
  "WORKFLOW_EXECUTION_COMPLETED",
  "WORKFLOW_EXECUTION_FAILED",
  "WORKFLOW_EXECUTION_CANCELED",
];

/** The WorkflowEvent envelope (reference/workflows.md §1.4), as the API returns it. */
export interface WorkflowEvent {
  event_id: string;
  /**
   * Unix **microseconds**. The reference says nanoseconds, but nanoseconds today (~1.8e18) are beyond
   * JavaScript's safe integers: DynamoDB's document client refuses to store them and the official
   * TypeScript SDK (zod `z.int()`) refuses every event that carries one.
   */
  event_timestamp: number;
  root_workflow_exec_id: string;
  parent_workflow_exec_id: string | null;
  continued_run_id: string | null;
  first_execution_run_id: string | null;
  chain_run_id: string | null;
  schedule_id: string | null;
  workflow_exec_id: string;
  workflow_run_id: string;
  workflow_name: string;
  event_type: WorkflowEventType;
  attributes: Record<string, unknown>;
}

/** A stored event: the envelope plus where it sits in its root's sequence (the SSE `id` / `broker_sequence`). */
export interface StoredWorkflowEvent {
  workspace: string;
  seq: number;
  event: WorkflowEvent;
}

/** A JSON payload as the events carry it (OA:JSONPayloadResponse). */
export const jsonPayload = (value: unknown) => ({ type: "json" as const, value: value ?? null, encoding_options: [] as string[] });

/** The envelope of an event of `run` (event_id and the timestamp are given by the caller: ids are UUIDs, time is the writer's clock). */
export function eventOf(
  run: Pick<RunRecord, "runId" | "executionId" | "rootExecutionId" | "parentExecutionId" | "workflowName" | "continuedRunId" | "firstExecutionRunId" | "scheduleId">,
  type: WorkflowEventType,
  attributes: Record<string, unknown>,
  at: { id: string; nowMs: number },
): WorkflowEvent {
  return {
    event_id: at.id,
    event_timestamp: at.nowMs * 1000,
    root_workflow_exec_id: run.rootExecutionId,
    parent_workflow_exec_id: run.parentExecutionId,
    continued_run_id: run.continuedRunId,
    first_execution_run_id: run.firstExecutionRunId,
    chain_run_id: null,
    schedule_id: run.scheduleId,
    workflow_exec_id: run.executionId,
    workflow_run_id: run.runId,
    workflow_name: run.workflowName,
    event_type: type,
    attributes,
  };
}
