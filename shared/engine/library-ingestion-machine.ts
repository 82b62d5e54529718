/**
 * The library ingestion state machine (docs/libraries.md, "Processing"; decision 71), defined once: CDK deploys it with
 * function ARNs as task resources and the local runner executes the same document.
 *
 *   Run ──▶ end
 *    └── an error it could not record ──▶ RecordFailure ──▶ Failed
 *
 * Run records what it can say about a document itself (an unreadable file is the document's `error`, not the
 * execution's); RecordFailure covers the rest: a fault, a timeout, retries spent.
 */

import { LAMBDA_RETRY } from "./batch-machine.js";

/** What an execution is started with (its name is `<document id>-<generation>`). */
export interface LibraryIngestionInput {
  organization: string;
  libraryId: string;
  documentId: string;
  generation: number;
}

/** What RecordFailure receives: the input plus the error Step Functions caught. */
export interface LibraryIngestionFailure extends LibraryIngestionInput {
  failure: { Error?: string; Cause?: string };
}

export interface LibraryIngestionTaskResources {
  run: string;
  recordFailure: string;
}

export const ingestionExecutionName = (input: Pick<LibraryIngestionInput, "documentId" | "generation">) => `${input.documentId}-${input.generation}`;

export function libraryIngestionDefinition(resources: LibraryIngestionTaskResources) {
  return {
    Comment: "Processes one library document: its text, chunks, their embeddings, the library's index",
    StartAt: "Run",
    States: {
      Run: { Type: "Task", Resource: resources.run, Retry: [LAMBDA_RETRY], Catch: [{ ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: "RecordFailure" }], End: true },
      RecordFailure: { Type: "Task", Resource: resources.recordFailure, Retry: [LAMBDA_RETRY], Next: "Failed" },
      Failed: { Type: "Fail", Error: "LibraryIngestionFailed", Cause: "The document could not be processed; its status says why" },
    },
  };
}
