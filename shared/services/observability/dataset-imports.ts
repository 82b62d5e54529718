/**
 * Dataset imports, exports and import tasks (`/v1/observability/datasets/{id}/imports/…`, `…/exports/to-jsonl`,
 * `…/tasks`; docs/observability/datasets.md, decision 62). An import checks what it names (the dataset, the file,
 * the records, the conversations), records a RUNNING task and starts its execution on the dataset import state
 * machine (dataset-import-engine.ts does the work); an export writes the dataset's records as a JSONL File and
 * answers a signed URL of it.
 */
import { randomUUID } from "node:crypto";
import { fileBlobs } from "../../blobs/files.js";
import { importBlobs, importKeys } from "../../blobs/dataset-imports.js";
import type { Caller } from "../../domain/caller.js";
import { ApiError, PayloadTooLarge } from "../../domain/errors.js";
import { isJsonl, objectKeyFor, type FileRecord } from "../../domain/file-rules.js";
import {
  conversationsNotFound,
  exportLine,
  fileNotFound,
  notJsonl,
  taskNotFound,
  toTaskOut,
  type DatasetImportTask,
  type ImportSource,
} from "../../domain/observability/dataset-imports.js";
import { datasetNotFound, pageLinks, recordNotFound, type Dataset } from "../../domain/observability/datasets.js";
import { signDownload } from "../../domain/signed-urls.js";
import { startExecution } from "../../engine/executions.js";
import { logger } from "../../observability/logger.js";
import { MAX_FILE_BYTES, SignedUrlQuery } from "../../schemas/file.js";
import type {
  DatasetImportTaskOut,
  ImportFromDatasetBody,
  ImportFromFileBody,
  ImportFromPlaygroundBody,
  TaskListOut,
  TaskListQuery,
} from "../../schemas/observability/dataset-imports.js";
import { datasetStore, recordStore } from "../../store/observability/datasets.js";
import { datasetTaskStore, recordsOfDataset } from "../../store/observability/dataset-tasks.js";
import { fileStore } from "../../store/files.js";
import { secretStore } from "../../store/tenancy.js";
import { get as getFile } from "../files/files.js";
import { conversationsFound } from "./dataset-import-engine.js";

const now = () => new Date().toISOString();
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function datasetOf(caller: Caller, id: string): Promise<Dataset> {
  const dataset = await datasetStore.get(caller.workspace, id.toLowerCase());
  if (!dataset) throw datasetNotFound(id);
  return dataset;
}

function newTask(caller: Caller, dataset: Dataset, source: ImportSource, fields: Partial<DatasetImportTask>): DatasetImportTask {
  const at = now();
  return {
    workspace: caller.workspace,
    id: randomUUID(),
    datasetId: dataset.id,
    creatorId: caller.principal,
    createdAt: at,
    updatedAt: at,
    status: "RUNNING",
    source,
    cursor: 0,
    line: 1,
    processed: 0,
    imported: 0,
    failed: 0,
    failures: [],
    message: null,
    ...fields,
  };
}

/** Records the task, then starts its execution (named by the task id); a start that fails leaves the task FAILED saying so, never RUNNING with nothing running it. */
async function started(task: DatasetImportTask): Promise<DatasetImportTaskOut> {
  await datasetTaskStore.create(task);
  try {
    await startExecution("datasetImport", task.id, { workspace: task.workspace, taskId: task.id });
  } catch (error) {
    logger.error("dataset import execution did not start", { taskId: task.id, error: error as Error });
    const message = "The import could not be started; start it again";
    if (task.inputKey) await importBlobs.remove(task.inputKey).catch(() => undefined);
    return toTaskOut((await datasetTaskStore.finish(task.workspace, task.id, "FAILED", message, now())) ?? { ...task, status: "FAILED", message });
  }
  return toTaskOut(task);
}

/** The caller's view of a file (another workspace's, someone else's private or an expired one is not found), in the observability envelope. */
async function fileOf(caller: Caller, id: string): Promise<FileRecord> {
  try {
    return await getFile(caller, id.toLowerCase());
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) throw fileNotFound(id);
    throw error;
  }
}

/** An uploaded JSONL file's lines become records (source UPLOADED_FILE); its bad lines are counted by the task. */
export async function importFromFile(caller: Caller, datasetId: string, body: ImportFromFileBody): Promise<DatasetImportTaskOut> {
  const dataset = await datasetOf(caller, datasetId);
  const file = await fileOf(caller, body.file_id);
  if (!isJsonl(file.filename, file.mimetype) && file.numLines === null) throw notJsonl(body.file_id);
  return started(newTask(caller, dataset, "FILE", { fileId: file.id, objectKey: file.objectKey, bytes: file.bytes }));
}

/** Copies of records of the workspace (any of its datasets): every id must name one (404 naming those that do not). */
export async function importFromDataset(caller: Caller, datasetId: string, body: ImportFromDatasetBody): Promise<DatasetImportTaskOut> {
  const dataset = await datasetOf(caller, datasetId);
  const ids = [...new Set(body.dataset_record_ids.map((id) => id.toLowerCase()))];
  const found = await recordStore.existing(caller.workspace, ids);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw recordNotFound(missing);
  return startedWithIds(caller, dataset, "DATASET", ids);
}

/**
 * Conversations (gen_ai.conversation.id of the workspace's model calls, what the platform keeps of a conversation)
 * become records (source PLAYGROUND): every id must have a model call with captured messages (404 naming those that do not).
 */
export async function importFromPlayground(caller: Caller, datasetId: string, body: ImportFromPlaygroundBody): Promise<DatasetImportTaskOut> {
  const dataset = await datasetOf(caller, datasetId);
  const ids = [...new Set(body.conversation_ids)];
  const found = await conversationsFound(caller.workspace, ids);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw conversationsNotFound(missing);
  return startedWithIds(caller, dataset, "PLAYGROUND", ids);
}

async function startedWithIds(caller: Caller, dataset: Dataset, source: ImportSource, ids: string[]): Promise<DatasetImportTaskOut> {
  const task = newTask(caller, dataset, source, { total: ids.length });
  task.inputKey = importKeys.input(caller.workspace, task.id);
  await importBlobs.putIds(task.inputKey, ids);
  return started(task);
}

export async function listTasks(caller: Caller, datasetId: string, query: TaskListQuery): Promise<TaskListOut> {
  const dataset = await datasetOf(caller, datasetId);
  const { tasks, count } = await datasetTaskStore.page(caller.workspace, dataset.id, (query.page - 1) * query.page_size, query.page_size);
  return { tasks: { results: tasks.map(toTaskOut), count, ...pageLinks(`/v1/observability/datasets/${datasetId}/tasks`, query.page, query.page_size, count) } };
}

export async function getTask(caller: Caller, datasetId: string, taskId: string): Promise<DatasetImportTaskOut> {
  const dataset = await datasetOf(caller, datasetId);
  const task = await datasetTaskStore.get(caller.workspace, taskId.toLowerCase());
  if (!task || task.datasetId !== dataset.id) throw taskNotFound(taskId);
  return toTaskOut(task);
}

/**
 * The dataset's records, oldest first, one JSON line each, written as a File of the workspace (the files API lists it;
 * it expires with its URL) and answered as a signed URL on the files download route, which works without a key
 * for the files API's default signed-URL lifetime. More than a file may hold is a 413 and no File is made.
 */
export async function exportToJsonl(caller: Caller, datasetId: string, downloadUrlOf: (fileId: string) => string): Promise<{ file_url: string }> {
  const dataset = await datasetOf(caller, datasetId);
  const id = randomUUID();
  const key = objectKeyFor(caller.workspace, id);
  const writer = fileBlobs.writer(key, "application/jsonl");
  let bytes = 0;
  let lines = 0;
  try {
    for await (const record of recordsOfDataset(caller.workspace, dataset.id)) {
      const line = Buffer.from(exportLine(record), "utf8");
      bytes += line.length;
      if (bytes > MAX_FILE_BYTES) throw new PayloadTooLarge(`The dataset's records are more than a file holds (${MAX_FILE_BYTES} bytes); export part of them`, "export_too_large");
      lines += 1;
      await writer.write(line);
    }
    await writer.finish();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  const hours = SignedUrlQuery.parse({}).expiry;
  const createdAtMs = Date.now();
  const createdAt = Math.floor(createdAtMs / 1000);
  const expiresAt = createdAt + hours * 3600;
  const file: FileRecord = {
    id,
    workspace: caller.workspace,
    organization: caller.organization,
    owner: caller.principal,
    filename: `dataset_${dataset.id}_export.jsonl`,
    bytes,
    createdAt,
    purpose: "fine-tune",
    sampleType: "instruct",
    source: "mistral",
    mimetype: "application/jsonl",
    numLines: lines,
    signature: null,
    expiresAt,
    visibility: "user",
    objectKey: key,
  };
  try {
    await fileStore.create(file, createdAtMs);
  } catch (error) {
    await fileBlobs.remove(key);
    throw error;
  }
  const token = signDownload(await secretStore.urlSigningSecret(), { workspace: caller.workspace, fileId: id, expiresAt: Math.min(expiresAt, nowSeconds() + hours * 3600) });
  return { file_url: `${downloadUrlOf(id)}?token=${token}` };
}
