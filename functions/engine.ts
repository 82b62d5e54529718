/**
 * The engine table: the Lambda tasks of the Step Functions state machines, built like route rows (one
 * bundle and one least-privilege role each, infra/build.ts and infra/engine-stack.ts) and run by the
 * local Step Functions stand-in from the same modules (infra/local/stepfunctions.ts).
 */
import { batchDefinition, type BatchTaskResources } from "../shared/engine/batch-machine.js";
import { deployedMachines, type MachineName } from "../shared/engine/machines.js";
import type { Grants } from "./routes.js";

export interface EngineTask {
  /** Module under functions/, without extension; it exports `handler`. */
  handler: string;
  grants: Grants;
  memoryMb?: number;
  timeoutSeconds: number;
}

/** What a batch task may touch: jobs, files (their records and objects), the catalog, usage, models. */
const batchGrants: Grants = {
  tables: { batch: "readwrite", files: "readwrite", models: "read", usage: "readwrite", agents: "read", tenancy: "read" },
  files: "readwrite-delete",
  models: "invoke",
};

export const batchTasks = {
  start: { handler: "engine/batch-start", grants: batchGrants, timeoutSeconds: 900, memoryMb: 1024 },
  runChunk: { handler: "engine/batch-run-chunk", grants: batchGrants, timeoutSeconds: 900, memoryMb: 1024 },
  finish: { handler: "engine/batch-finish", grants: batchGrants, timeoutSeconds: 900, memoryMb: 1024 },
  recordFailure: { handler: "engine/batch-record-failure", grants: batchGrants, timeoutSeconds: 60 },
} satisfies Record<keyof BatchTaskResources, EngineTask>;

export interface StateMachineRow {
  /** The env var that carries its ARN to the functions that start executions. */
  arnEnv: string;
  tasks: Record<string, EngineTask>;
  definition: (resources: Record<string, string>) => object;
  /** Executions stop after this (the job's own timeout_hours is enforced by the tasks). */
  timeoutHours: number;
}

export const stateMachines = {
  batch: {
    arnEnv: deployedMachines.batch.arnEnv,
    tasks: batchTasks,
    definition: (resources) => batchDefinition(resources as unknown as BatchTaskResources),
    timeoutHours: 170,
  },
} satisfies Record<MachineName, StateMachineRow>;

export const engineHandlers = (): string[] => Object.values(stateMachines).flatMap((m) => Object.values(m.tasks).map((t) => t.handler));

/**
 * The workflow engine's functions, beside the state machines: not tasks of a machine but Lambdas the
 * workflow machines (created at run time) invoke, and targets of EventBridge, schedules and timers.
 * `stepFunctions` and `timers` name what each needs beyond its grants, on the workflow machines
 * (`<WORKFLOW_MACHINE_PREFIX>*`) and in TIMER_GROUP: the CDK step grants them.
 */
export interface WorkflowEngineFunction extends EngineTask {
  trigger: "status-change" | "schedule" | "timer" | "task";
  stepFunctions?: ("DescribeExecution" | "StopExecution" | "SendTaskSuccess" | "SendTaskFailure" | "SendTaskHeartbeat")[];
  timers?: ("arm" | "disarm")[];
}

const workflowRecords: Grants = { tables: { workflows: "read", executions: "readwrite" } };

export const workflowEngineFunctions = {
  // Closes runs from their status changes: reads registrations (output_schema), writes runs and events.
  status: { handler: "engine/workflow-status", grants: workflowRecords, timeoutSeconds: 60, trigger: "status-change", timers: ["disarm"] },
  // Every 5 minutes: describes runs open for 10 minutes and closes those that are over.
  reconcile: { handler: "engine/workflow-reconcile", grants: workflowRecords, timeoutSeconds: 300, trigger: "schedule", stepFunctions: ["DescribeExecution"], timers: ["disarm"] },
  // Execution timeouts, cancel grace periods, platform:sleep_until.
  timer: { handler: "engine/workflow-timer", grants: workflowRecords, timeoutSeconds: 60, trigger: "timer", stepFunctions: ["StopExecution", "SendTaskSuccess"], timers: ["disarm"] },
  // Every Task of every workflow program (the compiled document invokes it with a task token): runs, tasks,
  // events and published state; model calls with usage and spend, as the chat route makes them.
  dispatch: {
    handler: "engine/workflow-dispatch",
    grants: { tables: { executions: "readwrite", workflows: "read", models: "read", usage: "readwrite", tenancy: "read" }, models: "invoke" },
    timeoutSeconds: 300,
    memoryMb: 1024,
    trigger: "task",
    stepFunctions: ["DescribeExecution", "SendTaskSuccess", "SendTaskFailure"],
    timers: ["arm"],
  },
} satisfies Record<string, WorkflowEngineFunction>;
