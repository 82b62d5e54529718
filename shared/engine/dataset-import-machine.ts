/**
 * The dataset import state machine (docs/observability/datasets.md, decision 62), defined once: CDK deploys it
 * with function ARNs as task resources and the local runner executes the same document.
 *
 *   Run (again while it says DatasetImportIncomplete) ──▶ end
 *    └── any other error ──▶ RecordFailure ──▶ Failed
 */

import { LAMBDA_RETRY } from "./batch-machine.js";

/** What the execution is started with (the execution name is the task id). */
export interface DatasetImportInput {
  workspace: string;
  taskId: string;
}

/** What RecordFailure receives: the input plus the error Step Functions caught. */
export interface DatasetImportFailure extends DatasetImportInput {
  failure: { Error?: string; Cause?: string };
}

export interface DatasetImportTaskResources {
  run: string;
  recordFailure: string;
}

// An invocation that nears its timeout commits what it did and throws this; running it again resumes (a 512 MB file
// takes a few invocations at most; 50 is far beyond any import's need, and ends a run that makes no progress).
const CONTINUES = { ErrorEquals: ["DatasetImportIncomplete"], IntervalSeconds: 1, MaxAttempts: 50, BackoffRate: 1 };

export function datasetImportDefinition(resources: DatasetImportTaskResources) {
  return {
    Comment: "Runs one dataset import task: reads its items, writes their records with the task's progress",
    StartAt: "Run",
    States: {
      Run: { Type: "Task", Resource: resources.run, Retry: [CONTINUES, LAMBDA_RETRY], Catch: [{ ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: "RecordFailure" }], End: true },
      RecordFailure: { Type: "Task", Resource: resources.recordFailure, Retry: [LAMBDA_RETRY], Next: "Failed" },
      Failed: { Type: "Fail", Error: "DatasetImportFailed", Cause: "The import could not finish; its task says why" },
    },
  };
}
