/**
 * The batch job state machine, defined once: CDK deploys it (with function ARNs as task resources) and
 * the local runner executes the same document (infra/local/stepfunctions.ts supplies the S3 ItemReader
 * that aws-local-stepfunctions ignores).
 *
 *   Start ──▶ Requests (Distributed Map over the chunk manifest in S3) ──▶ Finish
 *     └───────────────┴──── any error ──▶ RecordFailure ──▶ Failed
 */

/** What the execution is started with (the execution name is the job id). */
export interface BatchExecutionInput {
  workspace: string;
  jobId: string;
}

/** One slice of the job's requests, stored as JSONL at `key`; lines are `{custom_id, body}`. */
export interface BatchChunk {
  index: number;
  key: string;
  count: number;
}

/** Start's output: where the chunk manifest (a JSON array of BatchChunk) is, for the Map's ItemReader. */
export interface BatchStarted extends BatchExecutionInput {
  bucket: string;
  manifestKey: string;
}

/** What each Map iteration's task receives. */
export interface BatchChunkTask {
  job: BatchExecutionInput;
  chunk: BatchChunk;
}

/** What RecordFailure receives: Start's input or output, plus the error Step Functions caught. */
export interface BatchFailure extends BatchExecutionInput {
  failure: { Error?: string; Cause?: string };
}

export interface BatchTaskResources {
  start: string;
  runChunk: string;
  finish: string;
  recordFailure: string;
}

/** Chunks that run at once; each chunk also calls the model with bounded concurrency (shared/services/batch/engine/run-chunk.ts). */
export const CHUNK_CONCURRENCY = 8;

// Lambda's own transient failures: retried by Step Functions, not by our code (every engine machine's tasks).
export const LAMBDA_RETRY = {
  ErrorEquals: ["Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException", "Lambda.TooManyRequestsException"],
  IntervalSeconds: 2,
  MaxAttempts: 6,
  BackoffRate: 2,
  JitterStrategy: "FULL",
};

// A chunk that nears its Lambda timeout saves its progress and throws this; running it again resumes.
const CHUNK_CONTINUES = { ErrorEquals: ["BatchChunkIncomplete"], IntervalSeconds: 1, MaxAttempts: 20, BackoffRate: 1 };

const CATCH_ALL = [{ ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: "RecordFailure" }];

export function batchDefinition(resources: BatchTaskResources) {
  return {
    Comment: "Runs one batch job: split its requests into chunks, call the model for each request, write the result files",
    StartAt: "Start",
    States: {
      Start: { Type: "Task", Resource: resources.start, Retry: [LAMBDA_RETRY], Catch: CATCH_ALL, Next: "Requests" },
      Requests: {
        Type: "Map",
        ItemReader: {
          Resource: "arn:aws:states:::s3:getObject",
          ReaderConfig: { InputType: "JSON" },
          Parameters: { "Bucket.$": "$.bucket", "Key.$": "$.manifestKey" },
        },
        ItemSelector: { "job.$": "$", "chunk.$": "$$.Map.Item.Value" },
        MaxConcurrency: CHUNK_CONCURRENCY,
        ItemProcessor: {
          ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" },
          StartAt: "RunChunk",
          States: { RunChunk: { Type: "Task", Resource: resources.runChunk, Retry: [CHUNK_CONTINUES, LAMBDA_RETRY], End: true } },
        },
        ResultPath: null,
        Catch: CATCH_ALL,
        Next: "Finish",
      },
      Finish: { Type: "Task", Resource: resources.finish, Retry: [LAMBDA_RETRY], Catch: CATCH_ALL, End: true },
      RecordFailure: { Type: "Task", Resource: resources.recordFailure, Retry: [LAMBDA_RETRY], Next: "Failed" },
      Failed: { Type: "Fail", Error: "BatchJobFailed", Cause: "The batch job could not run; its record says why" },
    },
  };
}
