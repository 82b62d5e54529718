/**
 * Dataset import tasks and exports (docs/observability/datasets.md, decision 62): what a task stores, how it is
 * answered, how a JSONL line becomes a record (or a counted failure), and the errors of these routes. Pure: the
 * store and the services do the I/O.
 */
import type { DatasetImportTaskOut, ImportFailure, TaskStatus } from "../../schemas/observability/dataset-imports.js";
import type { DatasetRecordSource } from "../../schemas/observability/datasets.js";
import { ApiError } from "../errors.js";
import { checkConversation, checkRecordSize, observabilityError, type DatasetRecord } from "./datasets.js";

export type ImportSource = "FILE" | "PLAYGROUND" | "DATASET";

export interface DatasetImportTask {
  workspace: string;
  id: string;
  datasetId: string;
  creatorId: string;
  createdAt: string;
  updatedAt: string;
  status: TaskStatus;
  source: ImportSource;
  /** FILE: the uploaded file's id, object and size. */
  fileId?: string;
  objectKey?: string;
  bytes?: number;
  /** PLAYGROUND and DATASET: the object holding the ids to import (a JSON array), and how many there are. */
  inputKey?: string;
  total?: number;
  /**
   * Where the import goes on: FILE the byte offset of the next line to read, the others the index of the next id.
   * Moved in the same transaction as the records it covers, so a re-run never makes a record twice.
   */
  cursor: number;
  /** FILE: the number of the next line to read (from 1). */
  line: number;
  processed: number;
  imported: number;
  failed: number;
  /** The first MAX_FAILURES_KEPT failures (the count has all of them). */
  failures: ImportFailure[];
  message: string | null;
}

/** How many failures a task keeps with their line and reason (it counts every one). */
export const MAX_FAILURES_KEPT = 100;

/** Records written in one transaction with the task's progress and the dataset's check: DynamoDB takes 100 actions and 4 MB. */
export const RECORDS_PER_COMMIT = 25;
export const BYTES_PER_COMMIT = 2_000_000;

/** A JSONL line longer than this is a failure, skipped without being held whole. */
export const MAX_IMPORT_LINE_BYTES = 1_000_000;

/** The invocation stops taking items when it has less than this left, commits, and the state machine runs it again. */
export const IMPORT_TIME_MARGIN_MS = 60_000;

/** The run stopped before the end because its invocation ran out of time; running it again resumes after what was committed. */
export class DatasetImportIncomplete extends Error {
  constructor(taskId: string, processed: number) {
    super(`Import task ${taskId} stopped after ${processed} items to resume in a new invocation`);
    this.name = "DatasetImportIncomplete";
  }
}

/** A failure the task record may show as it is (no internals). */
export class DatasetImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DatasetImportError";
  }
}

export const taskNotFound = (id: string) => observabilityError(404, "DATASET_TASK_NOT_FOUND", `No import task with id '${id}' exists for this dataset`);
export const fileNotFound = (id: string) => observabilityError(404, "FILE_NOT_FOUND", `No file with id '${id}' exists in this workspace`);
export const conversationsNotFound = (ids: string[]) =>
  observabilityError(
    404,
    "CONVERSATION_NOT_FOUND",
    `No conversation ${ids.map((id) => `'${id}'`).join(", ")} has a model call with captured messages in this workspace's telemetry (within its retention); no task was started`,
  );
export const notJsonl = (id: string) => observabilityError(422, "VALIDATION_ERROR", `File '${id}' is not JSON lines: import a .jsonl file (one JSON object a line)`);

const percent = (done: number, total: number | undefined): number | null => (total === undefined ? null : total === 0 ? 100 : Math.min(100, Math.floor((done * 100) / total)));

export function progressOf(task: DatasetImportTask): number | null {
  if (task.status === "COMPLETED") return 100;
  if (task.source === "FILE") return percent(task.cursor, task.bytes);
  return percent(task.cursor, task.total);
}

export const toTaskOut = (task: DatasetImportTask): DatasetImportTaskOut => ({
  id: task.id,
  created_at: task.createdAt,
  updated_at: task.updatedAt,
  deleted_at: null,
  creator_id: task.creatorId,
  dataset_id: task.datasetId,
  workspace_id: task.workspace,
  status: task.status,
  progress: progressOf(task),
  message: task.message,
  source: task.source,
  processed_count: task.processed,
  imported_count: task.imported,
  failed_count: task.failed,
  failures: task.failures,
});

/** What a finished task says: its counts and the first failures. */
export function summary(task: Pick<DatasetImportTask, "imported" | "failed" | "failures">): string {
  const head = `Imported ${task.imported} record${task.imported === 1 ? "" : "s"}`;
  if (!task.failed) return `${head}.`;
  const shown = task.failures.slice(0, 3).map((f) => `${f.line !== null ? `line ${f.line}` : `'${f.id}'`}: ${f.reason}`);
  return `${head}; ${task.failed} failed (${shown.join("; ")}${task.failed > shown.length ? "; …" : ""}).`;
}

export type ParsedLine = { record: Pick<DatasetRecord, "payload" | "properties"> } | { reason: string } | { blank: true };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * One JSONL line of an import: `{"payload": {...}, "properties": {...}}` (what an export writes; other keys are
 * ignored), or a bare conversation `{"messages": [...]}`, which is the payload itself. Blank lines are skipped. A
 * payload is checked as a created record's is (conversation shape, size); any problem is the line's reason.
 */
export function parseImportLine(text: string): ParsedLine {
  if (!text.trim()) return { blank: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { reason: `not JSON (${(error as Error).message})` };
  }
  if (!isObject(value)) return { reason: "not a JSON object" };
  let payload: Record<string, unknown>;
  let properties: Record<string, unknown> = {};
  if ("payload" in value) {
    if (!isObject(value.payload)) return { reason: "payload must be a JSON object" };
    payload = value.payload;
    if (value.properties !== undefined && value.properties !== null) {
      if (!isObject(value.properties)) return { reason: "properties must be a JSON object" };
      properties = value.properties;
    }
  } else if ("messages" in value) {
    payload = value;
  } else {
    return { reason: 'no payload: a line is {"payload": {...}, "properties": {...}} or a conversation {"messages": [...]}' };
  }
  try {
    checkConversation(payload);
    checkRecordSize(payload, properties);
  } catch (error) {
    if (error instanceof ApiError) return { reason: error.message };
    throw error;
  }
  return { record: { payload, properties } };
}

/** A record's line in an export: what an import reads back (payload, properties), with the record's identity beside it. */
export const exportLine = (record: DatasetRecord): string =>
  `${JSON.stringify({ id: record.id, source: record.source satisfies DatasetRecordSource, created_at: record.createdAt, payload: record.payload, properties: record.properties })}\n`;

/** An import's failures as the task keeps them: appended up to MAX_FAILURES_KEPT. */
export const keptFailures = (kept: ImportFailure[], more: ImportFailure[]): ImportFailure[] => [...kept, ...more].slice(0, MAX_FAILURES_KEPT);

/** How a conversation id is written in a search expression (single-quoted, backslash escapes). */
export const expressionString = (value: string): string => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/**
 * What a failed task says, from the error Step Functions caught: our own DatasetImportError's message as it is
 * (Lambda's Cause is JSON {errorType, errorMessage}), anything else without internals.
 */
export function importFailureMessage(failure: { Error?: string; Cause?: string } | undefined, progress: Pick<DatasetImportTask, "imported">): string {
  let type = failure?.Error ?? "";
  let message = "";
  try {
    const cause = JSON.parse(failure?.Cause ?? "") as { errorType?: unknown; errorMessage?: unknown };
    if (typeof cause.errorType === "string") type = cause.errorType;
    if (typeof cause.errorMessage === "string") message = cause.errorMessage;
  } catch {
    // not Lambda's JSON: nothing of it is shown
  }
  const why =
    type === "DatasetImportError" && message
      ? message
      : type === "States.Timeout" || /task timed out/i.test(message)
        ? "The import ran out of time"
        : "The import could not finish because of an internal error";
  return `${why}. ${progress.imported} record${progress.imported === 1 ? " was" : "s were"} imported before it stopped (each whole).`;
}

/** A reason as a task keeps it: one line, bounded. */
export const reasonText = (reason: string): string => (reason.length > 300 ? `${reason.slice(0, 299)}…` : reason);
