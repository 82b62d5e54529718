import type { BatchJobRecord } from "../../shared/domain/batch-rules.js";
import type { DatasetImportTask } from "../../shared/domain/observability/dataset-imports.js";
import { batchStore } from "../../shared/store/batch.js";
import { datasetTaskStore } from "../../shared/store/observability/dataset-tasks.js";

export const RESTART_MESSAGE = "The local engine restarted while this job was running; create it again";
export const IMPORT_RESTART_MESSAGE = "The local engine restarted while this import was running; start it again (records it had imported stay)";

/**
 * Restart recovery for the local engine. Its executions live in the process (infra/local/stepfunctions.ts),
 * so when `npm start` stops, every job still queued, running or being cancelled loses its execution and
 * would stay unfinished forever. On start, before the API serves, each of them is moved to FAILED with a
 * message saying why. (In AWS, executions outlive any process; nothing like this is needed there.)
 * `only` narrows the jobs (tests share one DynamoDB). Returns the jobs it failed.
 */
export async function failInterruptedJobs(options: { only?: (job: BatchJobRecord) => boolean } = {}): Promise<BatchJobRecord[]> {
  const interrupted = (await batchStore.listActive()).filter(options.only ?? (() => true));
  const completedAt = Math.floor(Date.now() / 1000);
  const failed = await Promise.all(
    interrupted.map((job) => batchStore.transition(job.workspace, job.id, "FAILED", { errors: [{ message: RESTART_MESSAGE, count: 1 }], completedAt })),
  );
  // A job that reached a final status meanwhile is left as it is (transition answers undefined).
  return failed.filter((job): job is BatchJobRecord => job !== undefined);
}

/**
 * The same for dataset import tasks (decision 62): each one still RUNNING lost its execution with the process, so it
 * is answered FAILED saying why. The records its commits imported stay (each commit was whole); starting the import
 * again imports the file or the ids from the beginning.
 */
export async function failInterruptedImports(options: { only?: (task: DatasetImportTask) => boolean } = {}): Promise<DatasetImportTask[]> {
  const interrupted = (await datasetTaskStore.listRunning()).filter(options.only ?? (() => true));
  const at = new Date().toISOString();
  const failed = await Promise.all(interrupted.map((task) => datasetTaskStore.finish(task.workspace, task.id, "FAILED", IMPORT_RESTART_MESSAGE, at)));
  return failed.filter((task): task is DatasetImportTask => task !== undefined);
}
