/**
 * Dataset imports, exports and their tasks (docs/observability/datasets.md, decision 62): field names, bounds and
 * defaults are the OpenAPI's (ImportDatasetFromFileRequest, ImportDatasetFromPlaygroundRequest,
 * ImportDatasetFromDatasetRequest, ExportDatasetResponse, DatasetImportTask, ListDatasetImportTasksResponse),
 * plus the task's counts and failures as extension fields the SDK ignores. Bodies accept unknown fields and drop
 * them, as the OpenAPI's are open.
 */
import * as z from "zod";
import { Uuid } from "../common.js";

export const DatasetTaskParams = z.object({ dataset_id: Uuid, task_id: Uuid });

export const ImportFromFileBody = z.object({ file_id: Uuid });
export type ImportFromFileBody = z.infer<typeof ImportFromFileBody>;

/**
 * The most conversations one import takes. The OpenAPI sets no bound; ours keeps the lookup that refuses unknown
 * ids one query of the analytical store, within the route's time.
 */
export const MAX_CONVERSATIONS_PER_IMPORT = 100;

export const ImportFromPlaygroundBody = z.object({
  conversation_ids: z.array(z.string().trim().min(1).max(256)).min(1).max(MAX_CONVERSATIONS_PER_IMPORT),
});
export type ImportFromPlaygroundBody = z.infer<typeof ImportFromPlaygroundBody>;

export const ImportFromDatasetBody = z.object({ dataset_record_ids: z.array(Uuid).min(1).max(10_000) });
export type ImportFromDatasetBody = z.infer<typeof ImportFromDatasetBody>;

export const TaskStatus = z.enum(["RUNNING", "COMPLETED", "FAILED", "CANCELED", "TERMINATED", "CONTINUED_AS_NEW", "TIMED_OUT", "UNKNOWN"]);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** One item an import could not make a record of: the JSONL line (from 1) or the id it names, and why. */
export const ImportFailure = z.object({ line: z.number().int().nullable(), id: z.string().nullable(), reason: z.string() });
export type ImportFailure = z.infer<typeof ImportFailure>;

export const DatasetImportTaskOut = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
  creator_id: z.string(),
  dataset_id: z.string(),
  workspace_id: z.string(),
  status: TaskStatus,
  progress: z.number().int().min(0).max(100).nullable(),
  message: z.string().nullable(),
  // Extensions: what the task has done so far, item by item.
  source: z.enum(["FILE", "PLAYGROUND", "DATASET"]),
  processed_count: z.number().int(),
  imported_count: z.number().int(),
  failed_count: z.number().int(),
  failures: z.array(ImportFailure),
});
export type DatasetImportTaskOut = z.infer<typeof DatasetImportTaskOut>;

export const TaskListQuery = z.object({
  page: z.coerce.number<string>().int().min(1).default(1),
  page_size: z.coerce.number<string>().int().min(0).max(100).default(50),
});
export type TaskListQuery = z.infer<typeof TaskListQuery>;

export const TaskListOut = z.object({
  tasks: z.object({ results: z.array(DatasetImportTaskOut), count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable() }),
});
export type TaskListOut = z.infer<typeof TaskListOut>;

export const ExportDatasetOut = z.object({ file_url: z.string() });
export type ExportDatasetOut = z.infer<typeof ExportDatasetOut>;
