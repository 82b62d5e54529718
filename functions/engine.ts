/**
 * The engine table: the Lambda tasks of the Step Functions state machines, built like route rows (one
 * bundle and one least-privilege role each, infra/build.ts and infra/engine-stack.ts) and run by the
 * local Step Functions stand-in from the same modules (infra/local/stepfunctions.ts).
 */
import { batchDefinition, type BatchTaskResources } from "../shared/engine/batch-machine.js";
import { datasetImportDefinition, type DatasetImportTaskResources } from "../shared/engine/dataset-import-machine.js";
import { libraryIngestionDefinition, type LibraryIngestionTaskResources } from "../shared/engine/library-ingestion-machine.js";
import { deployedMachines, type MachineName } from "../shared/engine/machines.js";
import type { Grants } from "./routes.js";

export interface EngineTask {
  /** Module under functions/, without extension; it exports `handler`. */
  handler: string;
  grants: Grants;
  memoryMb?: number;
  timeoutSeconds: number;
  /** Run on a fixed rate (an EventBridge scheduled rule, infra/workflow-engine-stack.ts), every this many minutes. */
  everyMinutes?: number;
}

/** What a batch task may touch: jobs, files (their records and objects), the catalog, usage, models, and the telemetry of its lines' model calls. */
const batchGrants: Grants = {
  tables: { batch: "readwrite", files: "readwrite", models: "read", usage: "readwrite", agents: "read", tenancy: "read", telemetry: "write" },
  files: "readwrite-delete",
  models: "invoke",
  telemetry: "write",
};

export const batchTasks = {
  start: { handler: "engine/batch-start", grants: batchGrants, timeoutSeconds: 900, memoryMb: 1024 },
  // The task that runs the lines also reads OCR lines' documents with Textract (the cloud catalog's OCR model).
  // And runs conversation lines' agent loops: their conversations kept, their connectors' tools called with the job's creator's credentials,
  // their document_library tools searching the libraries the creator may read.
  runChunk: {
    handler: "engine/batch-run-chunk",
    grants: { ...batchGrants, tables: { ...batchGrants.tables, conversations: "readwrite", connectors: "readwrite", libraries: "read" }, ocr: "detect-text", secrets: true, vectors: "query" },
    timeoutSeconds: 900,
    memoryMb: 1024,
  },
  finish: { handler: "engine/batch-finish", grants: batchGrants, timeoutSeconds: 900, memoryMb: 1024 },
  recordFailure: { handler: "engine/batch-record-failure", grants: batchGrants, timeoutSeconds: 60 },
} satisfies Record<keyof BatchTaskResources, EngineTask>;

/**
 * What a dataset import may touch (decision 62): the datasets table (records, tasks), the uploaded file's object and
 * its own input objects under the workspace prefix, and the telemetry search (conversations are found by their spans).
 */
const datasetImportGrants: Grants = { tables: { datasets: "readwrite" }, files: "read-delete", telemetry: "query" };

export const datasetImportTasks = {
  run: { handler: "engine/dataset-import-run", grants: datasetImportGrants, timeoutSeconds: 900, memoryMb: 1024 },
  recordFailure: { handler: "engine/dataset-import-record-failure", grants: { tables: { datasets: "readwrite" }, files: "delete" }, timeoutSeconds: 60 },
} satisfies Record<keyof DatasetImportTaskResources, EngineTask>;

/**
 * What processing a library document may touch (decision 71): the libraries table (the document, its library's chunk
 * size), the document's objects under the library's workspace prefix, the catalog and usage of its OCR and embedding
 * calls (made as the uploader), Textract for scans in the cloud, and the library's vectors.
 */
const libraryIngestionGrants: Grants = {
  tables: { libraries: "readwrite", models: "read", usage: "readwrite", tenancy: "read", telemetry: "write" },
  files: "readwrite",
  models: "invoke",
  ocr: "detect-text",
  telemetry: "write",
  vectors: "write",
};

export const libraryIngestionTasks = {
  run: { handler: "engine/library-ingestion-run", grants: libraryIngestionGrants, timeoutSeconds: 900, memoryMb: 2048 },
  recordFailure: { handler: "engine/library-ingestion-record-failure", grants: { tables: { libraries: "readwrite" } }, timeoutSeconds: 60 },
} satisfies Record<keyof LibraryIngestionTaskResources, EngineTask>;

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
  datasetImport: {
    arnEnv: deployedMachines.datasetImport.arnEnv,
    tasks: datasetImportTasks,
    definition: (resources) => datasetImportDefinition(resources as unknown as DatasetImportTaskResources),
    timeoutHours: 24,
  },
  libraryIngestion: {
    arnEnv: deployedMachines.libraryIngestion.arnEnv,
    tasks: libraryIngestionTasks,
    definition: (resources) => libraryIngestionDefinition(resources as unknown as LibraryIngestionTaskResources),
    timeoutHours: 1,
  },
} satisfies Record<MachineName, StateMachineRow>;

/** What the workflow engine's functions may touch (they act for any workspace: they start from a run). */
const workflowTables: Grants["tables"] = { executions: "readwrite", workflows: "read" };

/**
 * The workflow engine's functions (docs/workflows.md): built like the tasks above, deployed by
 * infra/workflow-engine-stack.ts. Workflow state machines are created at run time (one per workflow), so
 * they are not rows here; every Task of theirs invokes `dispatch`. `grants.workflows` says what each may do
 * to the engine: describe/stop runs, complete task tokens, arm or disarm timers.
 */
export const workflowEngine = {
  /**
   * Every Task of every workflow program: activities to the queue (a restart's open task re-bound after
   * describing the run), platform built-ins here: model calls with usage and spend as the chat route makes them.
   */
  dispatch: {
    handler: "engine/workflow-dispatch",
    // runs: platform:child_workflow starts executions; platform:connector reads connectors and their sealed
    // credentials (and writes refreshed OAuth tokens).
    grants: { tables: { ...workflowTables, models: "read", usage: "readwrite", tenancy: "read", connectors: "readwrite", telemetry: "write" }, models: "invoke", workflows: { runs: "start-stop", tasks: true, timers: "arm" }, secrets: true, telemetry: "write" },
    timeoutSeconds: 300,
    memoryMb: 1024,
  },
  /**
   * Step Functions' status changes of workflow runs (EventBridge): closes runs, writes their events, disarms their
   * timers; starts the next run of a continue-as-new, arms retries and the stop of a parent's children, and
   * completes a waiting parent's task; re-arms the fire a schedule buffered behind the run (as every closer may).
   */
  status: { handler: "engine/workflow-status", grants: { tables: workflowTables, workflows: { runs: "start-stop", tasks: true, timers: "arm", schedules: "arm" } }, timeoutSeconds: 60 },
  /** Every 5 minutes: describes runs open for 10 minutes and closes those that are over (as the status handler would). */
  reconcile: { handler: "engine/workflow-reconcile", grants: { tables: workflowTables, workflows: { runs: "start-stop", tasks: true, timers: "arm", schedules: "arm" } }, timeoutSeconds: 300, everyMinutes: 5 },
  /** Fired timers: execution timeouts, cancel grace periods, platform:sleep_until, workflow retries, a closed parent's children. */
  timer: { handler: "engine/workflow-timer", grants: { tables: workflowTables, workflows: { runs: "start-stop", tasks: true, timers: "arm", schedules: "arm" } }, timeoutSeconds: 60 },
  /**
   * Workflow schedules' fires (the schedules channel's target): starts executions (routing reads the workflows
   * table; their timeout timers are armed), stops others under cancel/terminate-other, arms the next fire.
   */
  scheduleFire: {
    handler: "engine/workflow-schedule-fire",
    grants: { tables: workflowTables, workflows: { runs: "start-stop", timers: "arm", schedules: "arm" } },
    timeoutSeconds: 120,
  },
  /** Every minute: re-arms schedules whose armed fire was lost. */
  scheduleSweep: { handler: "engine/workflow-schedule-sweep", grants: { tables: { executions: "readwrite" }, workflows: { schedules: "arm" } }, timeoutSeconds: 120, everyMinutes: 1 },
} satisfies Record<string, EngineTask>;

/**
 * Periodic tasks of no engine of their own (decision 65): one function each, run every `everyMinutes` by an EventBridge
 * rate rule that infra/periodic-stack.ts builds from this table alone (a new periodic task is a row here, no infra code).
 */
export const periodicTasks = {
  /**
   * Sweeps the enabled evaluation pipelines of every workspace (docs/observability/pipelines.md): reads the pipelines
   * (datasets table), searches telemetry, calls models as the pipeline's owner (catalog, usage, spend, their spans) and
   * appends span evaluations (counted on their traces in the telemetry table).
   */
  pipelineSweep: {
    handler: "engine/pipeline-sweep",
    grants: { tables: { datasets: "readwrite", models: "read", usage: "readwrite", tenancy: "read", telemetry: "write" }, models: "invoke", telemetry: "query-write" },
    timeoutSeconds: 300,
    memoryMb: 1024,
    everyMinutes: 5,
  },
} satisfies Record<string, EngineTask & { everyMinutes: number }>;

export const engineHandlers = (): string[] => [
  ...Object.values(stateMachines).flatMap((m) => Object.values(m.tasks).map((t) => t.handler)),
  ...Object.values(workflowEngine).map((f) => f.handler),
  ...Object.values(periodicTasks).map((f) => f.handler),
];
