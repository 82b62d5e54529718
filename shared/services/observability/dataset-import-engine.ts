/**
 * The dataset import engine: the two tasks of shared/engine/dataset-import-machine.ts (docs/observability/datasets.md,
 * decision 62).
 *
 *   run            reads the task's items from where it stopped (a file's lines, record ids, conversation ids), makes a
 *                  record of each or counts its failure, and commits records and progress together every few items;
 *                  near its invocation's end it commits and throws DatasetImportIncomplete, and the machine runs it again
 *   recordFailure  the import could not finish: FAILED, with a message fit for the task
 */
import { randomUUID } from "node:crypto";
import { importBlobs } from "../../blobs/dataset-imports.js";
import {
  BYTES_PER_COMMIT,
  DatasetImportError,
  DatasetImportIncomplete,
  expressionString,
  IMPORT_TIME_MARGIN_MS,
  importFailureMessage,
  keptFailures,
  MAX_IMPORT_LINE_BYTES,
  parseImportLine,
  reasonText,
  RECORDS_PER_COMMIT,
  summary,
  type DatasetImportTask,
} from "../../domain/observability/dataset-imports.js";
import { checkRecordSize, payloadOfSpan, spanProperties, type DatasetRecord } from "../../domain/observability/datasets.js";
import { ApiError } from "../../domain/errors.js";
import type { SpanRow } from "../../domain/observability/records.js";
import type { DatasetImportFailure, DatasetImportInput } from "../../engine/dataset-import-machine.js";
import { logger } from "../../observability/logger.js";
import type { DatasetRecordSource } from "../../schemas/observability/datasets.js";
import type { ImportFailure } from "../../schemas/observability/dataset-imports.js";
import { recordStore } from "../../store/observability/datasets.js";
import { datasetTaskStore, type TaskProgress } from "../../store/observability/dataset-tasks.js";
import { aggregateTelemetry, searchTelemetry } from "./engine.js";

const now = () => new Date().toISOString();

/** Conversations looked up in one search, and pages read per lookup (each conversation's latest span is on the first ones). */
const CONVERSATIONS_PER_LOOKUP = 10;
const LOOKUP_PAGE = 100;
const LOOKUP_PAGES = 20;

/**
 * The latest span with captured messages of each conversation id (its `conversation_id`, gen_ai.conversation.id),
 * in the workspace's analytical store within the retention window: the conversation as its last model call saw it.
 */
export async function conversationSpans(workspace: string, ids: string[]): Promise<Map<string, SpanRow>> {
  const found = new Map<string, SpanRow>();
  for (let i = 0; i < ids.length; i += CONVERSATIONS_PER_LOOKUP) {
    const wanted = ids.slice(i, i + CONVERSATIONS_PER_LOOKUP);
    const expression = `conversation_id IN (${wanted.map(expressionString).join(", ")}) AND (input_messages != '' OR output_messages != '')`;
    let cursor: string | undefined;
    for (let page = 0; page < LOOKUP_PAGES; page += 1) {
      const feed = await searchTelemetry(workspace, "spans", { page_size: LOOKUP_PAGE, cursor, order: "desc", search_expression: expression });
      for (const row of feed.results as unknown as SpanRow[]) if (!found.has(row.conversation_id)) found.set(row.conversation_id, row);
      cursor = feed.cursor ?? undefined;
      if (!cursor || wanted.every((id) => found.has(id))) break;
    }
  }
  return found;
}

/**
 * Which of these conversation ids have a model call with captured messages in the workspace's telemetry: one
 * aggregation (count by conversation_id), so the request's check is one query of the analytical store.
 */
export async function conversationsFound(workspace: string, ids: string[]): Promise<Set<string>> {
  const expression = `conversation_id IN (${ids.map(expressionString).join(", ")}) AND (input_messages != '' OR output_messages != '')`;
  const { data } = await aggregateTelemetry(workspace, "spans", {}, { metric: { measure: "*", aggregation: "count" }, dimensions: ["conversation_id"], search_expression: expression, limit: ids.length });
  return new Set(data.map((row) => String(row.dimensions.conversation_id)));
}

/** The run was overtaken: another run committed past it, or the task is over. It stops without writing. */
class Overtaken extends Error {}

/** Records and failures gathered since the last commit, and the progress they move the task to. */
class Commits {
  private from: number;
  readonly progress: TaskProgress;
  private records: DatasetRecord[] = [];
  private pending = 0;
  private bytes = 0;
  /** Records are listed by creation time: each gets a later millisecond than the one before, so they list in the import's order. */
  private lastMs = 0;

  constructor(private readonly task: DatasetImportTask) {
    this.from = task.cursor;
    this.progress = { cursor: task.cursor, line: task.line, processed: task.processed, imported: task.imported, failed: task.failed, failures: task.failures };
  }

  record(fields: Pick<DatasetRecord, "payload" | "properties" | "source" | "span">): void {
    this.lastMs = Math.max(Date.now(), this.lastMs + 1);
    const at = new Date(this.lastMs).toISOString();
    const record: DatasetRecord = { workspace: this.task.workspace, id: randomUUID(), datasetId: this.task.datasetId, createdAt: at, updatedAt: at, ...fields };
    this.records.push(record);
    this.bytes += Buffer.byteLength(JSON.stringify(fields.payload)) + Buffer.byteLength(JSON.stringify(fields.properties));
    this.progress.imported += 1;
    this.progress.processed += 1;
    this.pending += 1;
  }

  failure(failure: ImportFailure): void {
    this.progress.failed += 1;
    this.progress.processed += 1;
    this.progress.failures = keptFailures(this.progress.failures, [{ ...failure, reason: reasonText(failure.reason) }]);
    this.pending += 1;
  }

  /** Where the next item is, once the items gathered so far are accounted for. */
  move(cursor: number, line = this.progress.line): void {
    this.progress.cursor = cursor;
    this.progress.line = line;
  }

  get full(): boolean {
    return this.pending >= RECORDS_PER_COMMIT || this.bytes >= BYTES_PER_COMMIT;
  }

  async commit(): Promise<void> {
    if (this.progress.cursor === this.from) return;
    const outcome = await datasetTaskStore.commit(this.task, this.from, { ...this.progress }, this.records, now());
    if (outcome === "dataset-gone") throw new DatasetImportError("The dataset was deleted during the import");
    if (outcome === "moved") throw new Overtaken();
    this.from = this.progress.cursor;
    this.records = [];
    this.pending = 0;
    this.bytes = 0;
  }
}

export interface RunOptions {
  /** Milliseconds the invocation has left (Lambda's context); unbounded when absent. */
  timeLeftMs?: () => number;
}

/** Run: the task's items from where it stopped to the end (or to its invocation's end: DatasetImportIncomplete). */
export async function runImport(input: DatasetImportInput, options: RunOptions = {}): Promise<{ status: string } | null> {
  const task = await datasetTaskStore.get(input.workspace, input.taskId);
  if (!task) throw new DatasetImportError("The import task no longer exists");
  if (task.status !== "RUNNING") return { status: task.status };
  const outOfTime = () => options.timeLeftMs !== undefined && options.timeLeftMs() < IMPORT_TIME_MARGIN_MS;
  const commits = new Commits(task);
  try {
    if (task.source === "FILE") await importLines(task, commits, outOfTime);
    else await importIds(task, commits, outOfTime);
  } catch (error) {
    if (error instanceof Overtaken) return null;
    throw error;
  }
  if (task.inputKey) await importBlobs.remove(task.inputKey).catch((error: unknown) => logger.warn("import input not removed", { error: error as Error }));
  const done = await datasetTaskStore.finish(task.workspace, task.id, "COMPLETED", summary(commits.progress), now());
  return { status: done?.status ?? "COMPLETED" };
}

const lineFailure = (line: number, reason: string): ImportFailure => ({ line, id: null, reason });

/** A file's JSON lines from the task's byte offset: each a record (source UPLOADED_FILE) or a failure naming its line. */
async function importLines(task: DatasetImportTask, commits: Commits, outOfTime: () => boolean): Promise<void> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let offset = task.cursor;
  let line = task.line;
  let held: Uint8Array[] = [];
  let lineBytes = 0;

  const endLine = (terminator: number) => {
    const size = lineBytes;
    const bytes = held.length === 1 ? held[0]! : Buffer.concat(held);
    held = [];
    lineBytes = 0;
    if (size > MAX_IMPORT_LINE_BYTES) commits.failure(lineFailure(line, `the line is ${size} bytes, over the ${MAX_IMPORT_LINE_BYTES} an imported line may have`));
    else {
      let text: string | undefined;
      try {
        text = decoder.decode(bytes).replace(/\r$/, "");
      } catch {
        commits.failure(lineFailure(line, "not UTF-8 text"));
      }
      if (text !== undefined) {
        const parsed = parseImportLine(text);
        if ("record" in parsed) commits.record({ ...parsed.record, source: "UPLOADED_FILE" });
        else if ("reason" in parsed) commits.failure(lineFailure(line, parsed.reason));
      }
    }
    offset += size + terminator;
    line += 1;
    commits.move(offset, line);
  };

  for await (const chunk of importBlobs.readFrom(task.objectKey!, task.cursor)) {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      lineBytes += piece.length;
      // A line over the bound is counted, not held: only its size matters from then on.
      if (lineBytes <= MAX_IMPORT_LINE_BYTES) held.push(piece.slice());
      else held = [];
      if (end < 0) break;
      endLine(1);
      start = end + 1;
      if (commits.full) await commits.commit();
      if (outOfTime()) {
        await commits.commit();
        throw new DatasetImportIncomplete(task.id, commits.progress.processed);
      }
    }
  }
  if (lineBytes > 0) endLine(0);
  await commits.commit();
}

/** Record ids (copies, their source kept) or conversation ids (source PLAYGROUND), from the task's index on. */
async function importIds(task: DatasetImportTask, commits: Commits, outOfTime: () => boolean): Promise<void> {
  let ids: string[];
  try {
    ids = await importBlobs.ids(task.inputKey!);
  } catch (error) {
    if ((error as Error).name === "NoSuchKey") throw new DatasetImportError("The import's list of ids is gone");
    throw error;
  }
  const step = task.source === "DATASET" ? RECORDS_PER_COMMIT : CONVERSATIONS_PER_LOOKUP;
  for (let index = task.cursor; index < ids.length; index += step) {
    const batch = ids.slice(index, index + step);
    if (task.source === "DATASET") await copyRecords(task, batch, commits);
    else await conversationRecords(task, batch, commits);
    commits.move(index + batch.length);
    await commits.commit();
    if (outOfTime() && index + step < ids.length) throw new DatasetImportIncomplete(task.id, commits.progress.processed);
  }
}

async function copyRecords(task: DatasetImportTask, ids: string[], commits: Commits): Promise<void> {
  const records = await Promise.all(ids.map((id) => recordStore.get(task.workspace, id)));
  ids.forEach((id, i) => {
    const source = records[i];
    if (!source) return commits.failure({ line: null, id, reason: "the record no longer exists" });
    commits.record({ payload: source.payload, properties: source.properties, source: source.source, span: source.span });
  });
}

async function conversationRecords(task: DatasetImportTask, ids: string[], commits: Commits): Promise<void> {
  const spans = await conversationSpans(task.workspace, ids);
  for (const id of ids) {
    const span = spans.get(id);
    if (!span) {
      commits.failure({ line: null, id, reason: "no model call of this conversation with captured messages is in the telemetry any more" });
      continue;
    }
    const payload = payloadOfSpan(span);
    const properties = { conversation_id: id, ...spanProperties(span) };
    try {
      checkRecordSize(payload, properties);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      commits.failure({ line: null, id, reason: error.message });
      continue;
    }
    const source: DatasetRecordSource = "PLAYGROUND";
    commits.record({ payload, properties, source, span: { traceId: span.trace_id, spanId: span.span_id, conversationId: span.conversation_id, responseId: span.response_id } });
  }
}

/** RecordFailure: FAILED with why (without internals) and how far it got; the input object goes. */
export async function recordImportFailure(input: DatasetImportFailure): Promise<void> {
  logger.error("dataset import failed", { failure: input.failure, taskId: input.taskId });
  const task = await datasetTaskStore.get(input.workspace, input.taskId);
  if (!task) return;
  const done = await datasetTaskStore.finish(task.workspace, task.id, "FAILED", importFailureMessage(input.failure, task), now());
  if (!done) logger.warn("import task not marked FAILED: it is over already", { taskId: task.id });
  if (task.inputKey) await importBlobs.remove(task.inputKey).catch(() => undefined);
}
